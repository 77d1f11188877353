// Same-run A/B: the fs-local of dd5caa8 (before issue 23) against this branch, interleaved round by round.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalDisk as OldDisk } from './packages/fs-local/src/local-disk'
import { LocalDisk as NewDisk } from '../src/local-disk'

type Disk = { resolve(p: string): Promise<any>; writeText(t: any, c: string, e?: any): Promise<any>; editText(t: any, e: any, x?: any): Promise<any>; stat(t: any): Promise<any> }
const variant = process.argv[2] ?? 'all'
const base = mkdtempSync(join(process.env.AB_DIR ?? tmpdir(), 'ab-'))
const opts = (cwd: string) => ({ cwd, root: cwd, diffMaxBytes: 1 << 19, maxTextBytes: 1 << 28 })
const dirs = { old: join(base, 'old'), new: join(base, 'new') }
import { mkdirSync } from 'node:fs'
mkdirSync(dirs.old); mkdirSync(dirs.new)
const disks: Record<string, Disk> = { old: new OldDisk(opts(dirs.old)) as Disk, new: new NewDisk(opts(dirs.new)) as Disk }
const text = (bytes: number, seed: number) => {
  const line = `line ${seed} ${'x'.repeat(60)}\n`
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes)
}
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]! }
async function run(name: string, rounds: number, op: (disk: Disk, round: number, who: string) => Promise<void>, prepare?: (disk: Disk, round: number, who: string) => Promise<void>) {
  const times: Record<string, number[]> = { old: [], new: [] }
  for (let round = 0; round < rounds + 3; round++) {
    const order = round % 2 === 0 ? ['old', 'new'] : ['new', 'old']
    for (const who of order) {
      await prepare?.(disks[who]!, round, who)
      const t = process.hrtime.bigint()
      await op(disks[who]!, round, who)
      const ms = Number(process.hrtime.bigint() - t) / 1e6
      if (round >= 3) times[who]!.push(ms)
    }
  }
  const o = median(times.old!), n = median(times.new!)
  // Paired: per-round ratio, its median.
  const paired = median(times.new!.map((v, i) => v / times.old![i]!))
  console.log(`${name.padEnd(22)} old ${o.toFixed(3)} ms  new ${n.toFixed(3)} ms  new/old ${(n / o).toFixed(3)}  paired ${paired.toFixed(3)}  (${rounds} rounds)`)
}
const small = text(4096, 1), small2 = text(4096, 2), mib = text(1 << 20, 1), mib2 = text(1 << 20, 2)
const versions: Record<string, any> = {}
if (variant === 'all' || variant === 'create') await run('create 4 KiB', 200, async (d, r) => { await d.writeText(await d.resolve(`c-${r}.txt`), small, { kind: 'createIfAbsent' }) })
if (variant === 'all' || variant === 'replace') {
  for (const who of ['old', 'new']) { const t = await disks[who]!.resolve('r.txt'); versions[who] = (await disks[who]!.writeText(t, small)).version }
  await run('replace 4 KiB', Number(process.env.AB_ROUNDS ?? 200), async (d, r, who) => { versions[who] = (await d.writeText(await d.resolve('r.txt'), r % 2 ? small : small2, { kind: 'replaceIfVersion', version: versions[who] })).version })
}
if (variant === 'all' || variant === 'mib') {
  for (const who of ['old', 'new']) { const t = await disks[who]!.resolve('m.txt'); versions[who] = (await disks[who]!.writeText(t, mib)).version }
  await run('replace 1 MiB', 60, async (d, r, who) => { versions[who] = (await d.writeText(await d.resolve('m.txt'), r % 2 ? mib : mib2, { kind: 'replaceIfVersion', version: versions[who] })).version })
}
if (variant === 'all' || variant === 'edit') {
  for (const who of ['old', 'new']) await disks[who]!.writeText(await disks[who]!.resolve('e.txt'), `value = 0\n${mib}`)
  await run('edit 1 MiB', 60, async (d, r) => {
    const t = await d.resolve('e.txt')
    const version = (await d.stat(t)).version
    await d.editText(t, { oldString: `value = ${r}\n`, newString: `value = ${r + 1}\n`, replaceAll: false }, { version })
  })
}
rmSync(base, { recursive: true, force: true })
process.exit(0)
