import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { startEnvdEmulator } from '../../packages/envd-emulator/src/index'
import type { FsTargetKey } from '../../packages/fs/src/index'
import { SandboxFleet } from '../../packages/fs-e2b/src/index'
import { type CaseResult, fix, fmtBytes, type Verdict } from '../harness/case'
import { QUICK } from '../harness/config'
import type { Scratch } from '../harness/scratch'
import { summarize } from '../harness/stats'

const TITLE = 'fleets of sandboxes'
const BASELINE = 'the same calls through a fleet of 1 sandbox, in the same run'
const FLEETS = QUICK ? [1, 10, 100] : [1, 100, 1000]
/** Timed calls per fleet size, spread over its sandboxes. */
const CALLS = QUICK ? 100 : 200
/** Untimed calls that load the SDK and warm its pool before the first fleet is measured. */
const WARMUP_CALLS = 20
/** Calls in flight at once, as from that many agents. */
const CLIENTS = 4
/** Sandboxes connected at once while a fleet is built (each connection is one probe command). */
const CONNECT_CONCURRENCY = 16
const BODY = 'a line of text\n'.repeat(64)

function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

const heap = () => {
  collectGarbage()
  return process.memoryUsage().heapUsed
}

interface Measured {
  sandboxes: number
  connectSeconds: number
  calls: number[]
  heapPerSandbox: number
  rss: number
  heapAfterDrop: number
}

/** `workers` loops taking the next index below `count` until none is left. */
async function inParallel(count: number, workers: number, body: (index: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(workers, count) }, async () => {
    while (next < count) await body(next++)
  }))
}

/**
 * One process, one `SandboxFleet`, `n` sandbox ids. The envd emulator answers for any id (it ignores
 * it), so every id is a sandbox of its own to the fleet (its own `Sandbox` object, probe, lock table
 * and remembered paths) while all of them share the emulator's disk: each works in its own directory.
 */
async function measure(url: string, root: string, n: number, resetRequests: () => void, callCount = CALLS): Promise<Measured> {
  resetRequests()
  const before = heap()
  const fleet = new SandboxFleet({ connection: { debug: true, sandboxUrl: url }, idleMs: 0, maxOpen: n })
  // Targets are named directly (the files' real paths): each timed call is one command, a read.
  const target = (i: number) => {
    const path = join(root, `s${i}`, 'file.txt')
    return { targetKey: path as FsTargetKey, displayPath: path }
  }
  try {
    // Connecting a sandbox is its first use: one probe command.
    const started = performance.now()
    await inParallel(n, CONNECT_CONCURRENCY, (i) => fleet.use(`sandbox-${i}`, async () => undefined))
    const connectSeconds = (performance.now() - started) / 1000
    if (fleet.open !== n || fleet.connects !== n) throw new Error(`expected ${n} connected sandboxes, found ${fleet.open} (${fleet.connects} connections)`)
    // Timed: CLIENTS calls in flight at a time, each on another sandbox (a stride through the fleet).
    const calls: number[] = []
    await inParallel(callCount, CLIENTS, async (c) => {
      const i = (c * 7919) % n
      const t = performance.now()
      const text = await fleet.use(`sandbox-${i}`, (fs) => fs.readText(target(i)))
      calls.push(performance.now() - t)
      if (text !== BODY) throw new Error(`sandbox ${i} read ${text.length} chars, expected ${BODY.length}`)
    })
    if (fleet.connects !== n) throw new Error('a connected sandbox was connected again during the timed calls')
    resetRequests()
    const held = heap()
    const rss = process.memoryUsage().rss
    // Drop them all, as an idle sweep would, and see the heap come back.
    fleet.close()
    const dropped = heap()
    // What dropping freed is what the fleet held for its sandboxes; what stays is the process's own growth (code, pools).
    return { sandboxes: n, connectSeconds, calls, heapPerSandbox: (held - dropped) / n, rss, heapAfterDrop: dropped - before }
  } finally {
    fleet.close()
  }
}

export async function runB15(scratch: Scratch): Promise<CaseResult> {
  const root = await scratch.dir('b15')
  const largest = Math.max(...FLEETS)
  for (let i = 0; i < largest; i++) {
    await mkdir(join(root, `s${i}`))
    await writeFile(join(root, `s${i}`, 'file.txt'), BODY)
  }
  const emulator = await startEnvdEmulator({ root })
  try {
    // Warm-up, untimed: loads the SDK's modules and its connection pool, which the first fleet would otherwise be charged for.
    await measure(emulator.url, root, 1, () => emulator.resetRequests(), WARMUP_CALLS)
    const results: Measured[] = []
    for (const n of FLEETS) results.push(await measure(emulator.url, root, n, () => emulator.resetRequests()))
    const one = summarize(results[0]!.calls)
    const rows = results.map((r) => {
      const s = summarize(r.calls)
      return [String(r.sandboxes), `${r.connectSeconds.toFixed(1)} s`, String(s.n), `${fix(s.median, 2)} ms`, `${fix(s.p99, 2)} ms`,
        r.sandboxes === 1 ? '—' : `${(s.median / one.median).toFixed(2)}× / ${(s.p99 / one.p99).toFixed(2)}×`,
        fmtBytes(Math.max(0, Math.round(r.heapPerSandbox))), fmtBytes(r.rss), fmtBytes(Math.max(0, r.heapAfterDrop))]
    })
    const big = results[results.length - 1]!
    const bigCalls = summarize(big.calls)
    const verdicts: Verdict[] = [
      {
        target: `memory per connected sandbox stays bounded at ${big.sandboxes} sandboxes`,
        measured: `${fmtBytes(Math.round(big.heapPerSandbox))} of heap per sandbox; ${fmtBytes(Math.max(0, big.heapAfterDrop))} left after dropping them all`,
        met: null,
      },
      {
        target: `p50/p99 per call at ${big.sandboxes} sandboxes vs 1`,
        measured: `${fix(bigCalls.median, 2)} / ${fix(bigCalls.p99, 2)} ms vs ${fix(one.median, 2)} / ${fix(one.p99, 2)} ms`,
        met: null,
      },
    ]
    return {
      id: 'B15', title: TITLE, baseline: BASELINE,
      tables: [{
        caption: `One process serving n sandboxes through one \`SandboxFleet\` on the envd emulator (in this process, answering every sandbox id). Each sandbox is connected by its first use (one probe command, ${CONNECT_CONCURRENCY} at a time: "connect all"); then ${CALLS} timed calls, ${CLIENTS} in flight at a time, each a read (one command) of a 1 KiB file in another sandbox. Heap per connected sandbox: what dropping them all freed (after a full GC) divided by n, i.e. each \`Sandbox\` object and its \`SandboxFs\`; RSS of the whole process (the emulator included); heap growth left over the fleet's start once it dropped every sandbox (the process's own: code, the SDK's pool).`,
        header: ['sandboxes', 'connect all', 'calls', 'p50', 'p99', 'vs 1 sandbox (p50 / p99)', 'heap per sandbox', 'RSS', 'heap after drop'],
        rows,
      }],
      verdicts,
      notes: [
        'The e2b SDK keeps one connection pool per process (an undici agent shared by every `Sandbox`, HTTP/2 to E2B), not one per sandbox: a fleet costs sockets per origin, not per sandbox, and dropping an idle sandbox frees its objects and remembered paths while the pool closes idle sockets itself.',
        'Every call is one command in the sandbox; on the emulator each command is a `bash` process spawned on this machine, which is most of the time per call. A sandbox\'s remembered paths (capped by `maxRememberedPaths`, 4096 by default) come on top of the heap shown, at about the size of two paths each.',
      ],
    }
  } finally {
    await emulator.close()
  }
}
