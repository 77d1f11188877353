// Same-run gains of the mechanisms fs-local keeps: each toggled off in a second disk, interleaved with the full one.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeldDirectories } from '../src/anchor'
import { LocalDisk } from '../src/local-disk'
import { LocalProcess } from '../src/process'
import { EncodeBuffers } from '../src/write-content'

const which = process.argv[2] ?? 'inline'
const base = mkdtempSync(join(tmpdir(), 'tg-'))
const text = (bytes: number, seed: number) => `line ${seed} ${'x'.repeat(60)}\n`.repeat(Math.ceil(bytes / 70)).slice(0, bytes)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
function make(name: string, off: boolean): LocalDisk {
  const dir = join(base, name)
  mkdirSync(dir)
  const shared = new LocalProcess()
  if (off && which === 'held') (shared as any).held = new (class extends HeldDirectories { override keep() { return undefined } })()
  if (off && which === 'pool') (shared as any).buffers = new (class extends EncodeBuffers { override giveBack() {} })()
  return new LocalDisk({ cwd: dir, root: dir, diffMaxBytes: 1 << 19, maxTextBytes: 1 << 28, process: shared, inlineCalls: off && which === 'inline' ? 'never' : 'auto' })
}
const disks = { on: make('on', false), off: make('off', true) }
async function run(name: string, rounds: number, op: (d: LocalDisk, r: number, who: 'on' | 'off') => Promise<void>) {
  const t: Record<string, number[]> = { on: [], off: [] }
  for (let r = 0; r < rounds + 3; r++) {
    for (const who of (r % 2 ? ['on', 'off'] : ['off', 'on']) as ('on' | 'off')[]) {
      const s = process.hrtime.bigint()
      await op(disks[who], r, who)
      if (r >= 3) t[who]!.push(Number(process.hrtime.bigint() - s) / 1e6)
    }
  }
  const on = median(t.on!), off = median(t.off!)
  const paired = median(t.on!.map((v, i) => v / t.off![i]!))
  console.log(`${which} ${name.padEnd(16)} with ${on.toFixed(3)} ms  without ${off.toFixed(3)} ms  gain ${((1 - on / off) * 100).toFixed(1)} %  paired gain ${((1 - paired) * 100).toFixed(1)} %`)
}
const small = [text(4096, 1), text(4096, 2)], mib = [text(1 << 20, 1), text(1 << 20, 2)]
const v: Record<string, any> = {}
await run('create 4 KiB', 150, async (d, r) => { await d.writeText(await d.resolve(`c-${r}.txt`), small[0]!, { kind: 'createIfAbsent' }) })
for (const who of ['on', 'off'] as const) v[who] = (await disks[who].writeText(await disks[who].resolve('r.txt'), small[0]!)).version
await run('replace 4 KiB', 150, async (d, r, who) => { v[who] = (await d.writeText(await d.resolve('r.txt'), small[r % 2]!, { kind: 'replaceIfVersion', version: v[who] })).version })
if (which === 'pool' || which === 'inline') {
  for (const who of ['on', 'off'] as const) v[who] = (await disks[who].writeText(await disks[who].resolve('m.txt'), mib[0]!)).version
  await run('replace 1 MiB', 50, async (d, r, who) => { v[who] = (await d.writeText(await d.resolve('m.txt'), mib[r % 2]!, { kind: 'replaceIfVersion', version: v[who] })).version })
}
rmSync(base, { recursive: true, force: true })
process.exit(0)
