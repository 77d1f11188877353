import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type CaseResult, fmtBytes, fmtMs, type Verdict } from '../harness/case'
import { config } from '../harness/config'
import { interleave } from '../harness/interleave'
import type { Scratch } from '../harness/scratch'
import { ratio, summarize } from '../harness/stats'
import { expectOk, toolStack } from '../harness/tool-stack'
import { textOfSize } from '../inputs/text'

const TITLE = 'policy cost'
const BASELINE = 'the same tool calls through `ctx.tools` on a stack without `dsh-fs-policy`'
const LIMIT = 0.03

/**
 * Three stacks side by side in one process: tools with the policy, tools without it, and the
 * provider alone (`ctx.fs`). Each has its own copy of the file, so no call sees another's writes.
 */
export async function runB4(scratch: Scratch): Promise<CaseResult> {
  const dir = await scratch.dir('b4')
  const bytes = config.b4.fileBytes
  const content = `${textOfSize(bytes, 4)}const marker = 'even'\n`
  for (const sub of ['policy', 'bare', 'fs']) {
    await scratch.dir(`b4/${sub}`)
    await writeFile(join(dir, sub, 'file.txt'), content)
  }
  const withPolicy = await toolStack(join(dir, 'policy'), { policy: true })
  const without = await toolStack(join(dir, 'bare'), { policy: false })
  const direct = await toolStack(join(dir, 'fs'), { policy: false })
  const marker = ["const marker = 'even'", "const marker = 'odd'"]
  const edit = (round: number) => ({ file_path: 'file.txt', old_string: marker[round % 2]!, new_string: marker[(round + 1) % 2]! })
  const rows: string[][] = []
  const verdicts: Verdict[] = []
  try {
    expectOk(await withPolicy.call('read', { file_path: 'file.txt' }), 'read before edit')
    const cases = [
      {
        op: 'read', rounds: config.b4.rounds, warmup: config.b4.warmup,
        policy: async () => expectOk(await withPolicy.call('read', { file_path: 'file.txt' }), 'read'),
        bare: async () => expectOk(await without.call('read', { file_path: 'file.txt' }), 'read'),
        fs: async () => {
          const t = await direct.fs.resolve('file.txt')
          await direct.fs.stat(t)
          return direct.fs.readText(t)
        },
      },
      {
        // Edits fsync twice (file, directory): fewer rounds, the policy's share is smaller still.
        op: 'edit', rounds: Math.ceil(config.b4.rounds / 5), warmup: Math.ceil(config.b4.warmup / 5),
        policy: async (round: number) => expectOk(await withPolicy.call('edit', edit(round)), 'edit'),
        bare: async (round: number) => expectOk(await without.call('edit', edit(round)), 'edit'),
        fs: async (round: number) => direct.fs.editText(await direct.fs.resolve('file.txt'),
          { oldString: marker[round % 2]!, newString: marker[(round + 1) % 2]!, replaceAll: false }),
      },
    ]
    for (const c of cases) {
      const { samples } = await interleave([
        { name: 'policy', run: c.policy },
        { name: 'bare', run: c.bare },
        { name: 'fs', run: c.fs },
      ], { rounds: c.rounds, warmup: c.warmup })
      const p = summarize(samples.policy!)
      const b = summarize(samples.bare!)
      const f = summarize(samples.fs!)
      const overhead = ratio(p, b) - 1
      const micro = (p.median - b.median) * 1000
      rows.push([c.op, String(p.n), fmtMs(p, 3), fmtMs(b, 3), fmtMs(f, 3), `${(overhead * 100).toFixed(1)} % (${micro.toFixed(0)} µs)`])
      verdicts.push({ target: `${c.op}: policy overhead ≤ ${LIMIT * 100} % per call`, measured: `${(overhead * 100).toFixed(1)} %`, met: overhead <= LIMIT })
    }
  } finally {
    for (const s of [withPolicy, without, direct]) await s.dispose()
  }
  return {
    id: 'B4', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `A ${fmtBytes(Buffer.byteLength(content))} file. \`ctx.fs\` = \`resolve\` + \`stat\` + \`readText\` for read, \`resolve\` + unguarded \`editText\` for edit: the cost of the tool layer itself (validation, rendering, events).`,
      header: ['call', 'rounds', 'tools + policy', 'tools, no policy', '`ctx.fs` directly', 'policy overhead'],
      rows,
    }],
    verdicts,
    notes: [],
  }
}
