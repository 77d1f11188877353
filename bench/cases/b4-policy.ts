import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type CaseResult, fmtBytes, fmtMs, type Verdict } from '../harness/case'
import { config } from '../harness/config'
import { interleave } from '../harness/interleave'
import type { Scratch } from '../harness/scratch'
import { median, ratio, summarize } from '../harness/stats'
import { expectOk, type ToolStack, toolStack } from '../harness/tool-stack'
import type { FsTargetKey, FsVersion } from '../../packages/fs/src/index'
import { textOfSize } from '../inputs/text'

const TITLE = 'policy cost'
const BASELINE = 'the same tool calls through `ctx.tools` on a stack without `dsh-fs-policy`'
const LIMIT = 0.03
const EVENTS = 20_000
const EVENT_ROUNDS = 7

/** Microseconds the policy's listeners add to the events of one tool call, with and without the policy interleaved. */
async function isolatedCost(op: 'read' | 'edit', withPolicy: ToolStack, without: ToolStack): Promise<number> {
  const target = { targetKey: '/bench/isolated' as FsTargetKey, displayPath: '/bench/isolated' }
  const actor = { callId: 'bench', name: op, signal: new AbortController().signal, agent: { session: withPolicy.session } }
  const present = { kind: 'present', version: 'v1' as FsVersion } as const
  // The edit intent needs an observation first, or the policy refuses (FS_NOT_OBSERVED).
  withPolicy.ctx.emit('fs/observed', target, present, actor)
  const events = (stack: ToolStack) => async () => {
    for (let i = 0; i < EVENTS; i++) {
      if (op === 'edit') await stack.ctx.waterfall('fs/edit-intent', target, actor, () => undefined)
      stack.ctx.emit('fs/observed', target, present, actor)
    }
  }
  const { samples } = await interleave([
    { name: 'policy', run: events(withPolicy) },
    { name: 'bare', run: events(without) },
  ], { rounds: EVENT_ROUNDS, warmup: 1, rotate: true })
  return ((median(samples.policy!) - median(samples.bare!)) / EVENTS) * 1000
}

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
  const isolated: string[][] = []
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
      ], { rounds: c.rounds, warmup: c.warmup, rotate: true })
      const p = summarize(samples.policy!)
      const b = summarize(samples.bare!)
      const f = summarize(samples.fs!)
      const overhead = ratio(p, b) - 1
      const micro = (p.median - b.median) * 1000
      // Paired: the same round's two calls ran back to back, so their difference cancels slow drift.
      const paired = median(samples.policy!.map((v, i) => v - samples.bare![i]!)) * 1000
      rows.push([c.op, String(p.n), fmtMs(p, 3), fmtMs(b, 3), fmtMs(f, 3), `${(overhead * 100).toFixed(1)} % (${micro.toFixed(0)} µs)`,
        `${paired.toFixed(0)} µs (${((paired / 1000 / b.median) * 100).toFixed(1)} %)`])
      const own = await isolatedCost(c.op === 'read' ? 'read' : 'edit', withPolicy, without)
      const share = own / (b.median * 1000)
      isolated.push([c.op, `${own.toFixed(2)} µs`, `${(share * 100).toFixed(2)} %`])
      verdicts.push({
        target: `${c.op}: policy overhead ≤ ${LIMIT * 100} % per call`,
        measured: `${(share * 100).toFixed(2)} % isolated (${own.toFixed(1)} µs of ${b.median.toFixed(3)} ms); end to end ${(overhead * 100).toFixed(1)} % ratio of medians, ${((paired / 1000 / b.median) * 100).toFixed(1)} % paired`,
        met: share <= LIMIT,
      })
    }
  } finally {
    for (const s of [withPolicy, without, direct]) await s.dispose()
  }
  return {
    id: 'B4', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `A ${fmtBytes(Buffer.byteLength(content))} file. \`ctx.fs\` = \`resolve\` + \`stat\` + \`readText\` for read, \`resolve\` + unguarded \`editText\` for edit: the cost of the tool layer itself (validation, rendering, events).`,
      header: ['call', 'rounds', 'tools + policy', 'tools, no policy', '`ctx.fs` directly', 'policy overhead (ratio of medians − 1)', 'median of paired differences'],
      rows,
    }, {
      caption: `The policy's own work per call, isolated: the events a tool call raises (\`fs/observed\` for read; \`fs/edit-intent\` then \`fs/observed\` for edit), ${EVENTS} times on the stack with the policy and on the one without, interleaved (${EVENT_ROUNDS} rounds); the difference per call, and its share of the median tool call without the policy.`,
      header: ['call', 'policy cost per call', 'share of the call'],
      rows: isolated,
    }],
    verdicts,
    notes: [
      'The three variants are interleaved with the starting variant rotated every round, so none always runs first. End-to-end differences of a few µs drown in the noise of calls that do file I/O (their min–max spread is larger than the whole policy), so the verdict uses the isolated cost of the policy\'s listeners measured in the same run (second table); the end-to-end ratio and paired difference are shown beside it.',
      'What the policy adds per call: one `fs/observed` listener (a WeakMap and Map update) on read; on edit, the `fs/edit-intent` listener answering the version instead of the default thunk. Neither does I/O.',
    ],
  }
}
