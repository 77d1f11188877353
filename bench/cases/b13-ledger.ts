import { Context } from 'cordis'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { join } from 'node:path'
import type { FsTargetKey, FsVersion } from '../../packages/fs/src/index'
import * as policy from '../../packages/fs-policy/src/index'
import { hasBinary, startRedis } from '../../packages/test-kit/src/index'
import * as tools from '../../packages/tools/src/index'
import type { ToolExecution, ToolResult } from '../../packages/tools/src/index'
import { type CaseResult, fix, type Verdict } from '../harness/case'
import { QUICK } from '../harness/config'
import { interleave } from '../harness/interleave'
import type { Scratch } from '../harness/scratch'
import { summarize } from '../harness/stats'

const TITLE = 'ledger cost'
const BASELINE = 'the same policy work on the `memory` ledger'
/** The target: Redis adds at most 1 ms at p99 over memory. */
const REDIS_P99_LIMIT_MS = 1
const ROUNDS = QUICK ? 300 : 3000
const IDLE_OWNERS = QUICK ? 1_000 : 10_000

interface Subject {
  name: string
  ctx: Context
  dispose(): Promise<void>
}

async function subject(name: string, ledger: string): Promise<Subject> {
  const ctx = new Context()
  const fibers = [await ctx.plugin(tools.default), await ctx.plugin(policy.default, { ledger })]
  return { name, ctx, dispose: async () => { for (const fiber of fibers.reverse()) await fiber.dispose() } }
}

/**
 * The policy's whole share of one tool call, without the tool: the `tools/execute` hook around a
 * body that raises what an edit raises (`fs/edit-intent`, then `fs/observed` of the new version,
 * made from the version held). The hook returns once the reply may leave: the edit's observation
 * is sent by then, and the owner's next lookup waits for it.
 */
function editCall(s: Subject) {
  const target = { targetKey: '/bench/ledger.txt' as FsTargetKey, displayPath: '/bench/ledger.txt' }
  const exec: ToolExecution = { callId: 'bench', name: 'bench-edit', signal: new AbortController().signal, agent: { session: { owner: 'bench' } } }
  const result: ToolResult = { content: [{ type: 'text', text: 'ok' }], isError: false }
  let version = 0
  // Seen once, as a read of all 40 lines would: every edit after that is guarded by the version the
  // last one made, and says, as the edit tool does, which version it made this one from and which
  // lines its reply showed.
  s.ctx.emit('fs/observed', target, { kind: 'present', version: 'v0' as FsVersion, seen: { ranges: [[1, 40]], total: 40 } }, exec)
  return async () => {
    await s.ctx.waterfall('tools/execute', exec, {}, async () => {
      await s.ctx.waterfall('fs/edit-intent', target, exec, () => undefined)
      const from = { version: `v${version}` as FsVersion, changes: [{ line: 12, removedLines: 1, addedLines: 1 }] }
      s.ctx.emit('fs/observed', target, { kind: 'present', version: `v${++version}` as FsVersion, seen: { ranges: [[9, 15]], total: 40 }, from }, exec)
      return result
    })
  }
}

function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

/** Heap bytes per owner that holds one observation in a memory ledger. */
async function memoryPerOwner(): Promise<number> {
  const ledger = new policy.MemoryLedger(policy.limitsOf(policy.Config.parse({ maxOwners: IDLE_OWNERS })))
  collectGarbage()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < IDLE_OWNERS; i++) ledger.put(`token-${i.toString(16).padStart(40, '0')}`, `/workspace/src/file-${i % 50}.ts`, { kind: 'present', version: `${i}-1733000000000-4096` as FsVersion })
  collectGarbage()
  const after = process.memoryUsage().heapUsed
  await ledger.close()
  return (after - before) / IDLE_OWNERS
}

export async function runB13(scratch: Scratch): Promise<CaseResult> {
  const dir = await scratch.dir('b13')
  const redis = hasBinary('redis-server') ? await startRedis() : undefined
  const subjects = [
    await subject('memory', 'memory'),
    await subject('file', `file:${join(dir, 'ledger.journal')}`),
    ...(redis === undefined ? [] : [await subject('redis', `${redis.url}/0`)]),
  ]
  try {
    const { samples } = await interleave(subjects.map((s) => ({ name: s.name, run: editCall(s) })), { rounds: ROUNDS, warmup: Math.ceil(ROUNDS / 10), rotate: true })
    const memory = summarize(samples.memory!)
    const rows = subjects.map((s) => {
      const summary = summarize(samples[s.name]!)
      return [s.name, String(summary.n), `${fix(summary.median, 3)} ms`, `${fix(summary.p99, 3)} ms`,
        s.name === 'memory' ? '—' : `+${fix(summary.median - memory.median, 3)} ms / +${fix(summary.p99 - memory.p99, 3)} ms`]
    })
    const verdicts: Verdict[] = []
    if (redis !== undefined) {
      const added = summarize(samples.redis!).p99 - memory.p99
      verdicts.push({ target: `Redis adds at most ${REDIS_P99_LIMIT_MS} ms at p99 over memory`, measured: `+${fix(added, 3)} ms at p99 (loopback redis-server)`, met: added <= REDIS_P99_LIMIT_MS })
    } else {
      verdicts.push({ target: `Redis adds at most ${REDIS_P99_LIMIT_MS} ms at p99 over memory`, measured: 'not measured: redis-server is not installed', met: null })
    }
    const perOwner = await memoryPerOwner()
    return {
      id: 'B13', title: TITLE, baseline: BASELINE,
      tables: [{
        caption: `The policy's share of one edit call (the \`tools/execute\` hook around \`fs/edit-intent\` and \`fs/observed\`), ${ROUNDS} rounds per ledger, interleaved. The file ledger syncs its journal (fdatasync) for every call, the next lookup waiting for it; Redis is a redis-server on loopback.`,
        header: ['ledger', 'rounds', 'p50', 'p99', 'added over memory (p50 / p99)'],
        rows,
      }, {
        caption: `Memory of idle owners in a memory ledger: ${IDLE_OWNERS} token owners holding one observation each, heap after a full GC.`,
        header: ['owners', 'heap per owner'],
        rows: [[String(IDLE_OWNERS), `${perOwner.toFixed(0)} B`]],
      }],
      verdicts,
      notes: [
        'An edit through Redis costs one awaited round trip in the policy (the intent\'s GET); its observation goes out as one script (checked against the entry the GET read) before the reply and is awaited by the owner\'s next lookup, not by the reply. A read waits for its one script.',
        'A session-object owner in a memory ledger is held weakly and costs nothing once its session is gone; token owners stay until their TTL, `maxEntriesPerOwner` or `maxOwners` drop them.',
      ],
    }
  } finally {
    for (const s of subjects) await s.dispose()
    await redis?.[Symbol.asyncDispose]()
  }
}
