import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type EnvdEmulator, startEnvdEmulator } from '../../packages/envd-emulator/src/index'
import type { FsTarget, FsVersion } from '../../packages/fs/src/index'
import { E2BFileSystem } from '../../packages/fs-e2b/src/index'
import { type CaseResult, fmtMs, fmtRatio, type Verdict } from '../harness/case'
import { config } from '../harness/config'
import { interleave, type Variant } from '../harness/interleave'
import type { Scratch } from '../harness/scratch'
import { summarize } from '../harness/stats'
import { expectOk, type ToolStack, toolStack } from '../harness/tool-stack'
import { MINIMA } from './b6-minima'

const TITLE = 'E2B round trips'
const BASELINE = 'the fewest requests the envd protocol and the contract allow for the same operation (last column)'
const MARKER = ["const marker = 'even'", "const marker = 'odd'"]
const BODY = `${'a line of text\n'.repeat(200)}const marker = 'even'\n`
/** Content whose command would not fit one argument of the sandbox's `bash -c`: it is uploaded. */
const LARGE = 'a line of text\n'.repeat(10_000)

type Operation = (round: number) => Promise<unknown>

/** One sandbox: an emulator on its own home directory and the default stack on top of it. */
interface Side {
  emulator: EnvdEmulator
  stack: ToolStack
  operations: Array<[string, { prepare?: () => Promise<void>; run: Operation }]>
}

async function side(root: string, latencyMs: number): Promise<Side> {
  const emulator = await startEnvdEmulator({ root, latencyMs })
  const stack = await toolStack(root, {
    policy: true,
    provider: (ctx) => ctx.plugin(E2BFileSystem, { sandboxId: 'emulated', debug: true, sandboxUrl: emulator.url, cwd: root }),
  })
  const fs = stack.fs
  for (const name of ['p-read.txt', 'p-replace.txt', 'p-edit.txt', 't-read.txt', 't-edit.txt', 't-replace.txt']) await writeFile(join(root, name), BODY)
  const target = (name: string) => fs.resolve(join(root, name))
  const versions = new Map<string, FsVersion>()
  const versionOf = async (t: FsTarget) => versions.get(t.targetKey) ?? (await fs.stat(t))!.version
  let serial = 0
  let fresh: FsTarget | undefined
  // Operands are resolved untimed and uncounted for provider operations (a resolve is its own row).
  const pRead = await target('p-read.txt')
  const pReplace = await target('p-replace.txt')
  const pEdit = await target('p-edit.txt')
  versions.set(pReplace.targetKey, await versionOf(pReplace))
  versions.set(pEdit.targetKey, await versionOf(pEdit))
  expectOk(await stack.call('read', { file_path: 't-edit.txt' }), 'read')
  expectOk(await stack.call('read', { file_path: 't-replace.txt' }), 'read')
  return {
    emulator, stack,
    operations: [
      ['`resolve`', { run: () => fs.resolve(join(root, 'p-read.txt')) }],
      ['`stat`', { run: () => fs.stat(pRead) }],
      ['`readText`', { run: () => fs.readText(pRead) }],
      ['`inspect`', { run: () => fs.inspect(join(root, 'p-read.txt'), { textUpTo: 256 * 1024 }) }],
      ['`resolveForMutation`, path seen before', { run: () => fs.resolveForMutation(join(root, 'p-edit.txt')) }],
      ['`streamText`', { run: async () => { for await (const _ of fs.streamText(pRead)); } }],
      ['`writeText` createIfAbsent', {
        prepare: async () => { fresh = await target(`p-new-${serial++}.txt`) },
        run: () => fs.writeText(fresh!, BODY, { expected: { kind: 'createIfAbsent' } }),
      }],
      ['`writeText` createIfAbsent, above the inline bound', {
        prepare: async () => { fresh = await target(`p-large-${serial++}.txt`) },
        run: () => fs.writeText(fresh!, LARGE, { expected: { kind: 'createIfAbsent' } }),
      }],
      ['`writeText` replaceIfVersion', {
        run: async (round) => {
          const outcome = await fs.writeText(pReplace, `${BODY}${round}\n`, { expected: { kind: 'replaceIfVersion', version: versions.get(pReplace.targetKey)! } })
          versions.set(pReplace.targetKey, outcome.version)
        },
      }],
      ['`editText` guarded', {
        run: async (round) => {
          const edit = { oldString: MARKER[round % 2]!, newString: MARKER[(round + 1) % 2]!, replaceAll: false }
          const outcome = await fs.editText(pEdit, edit, { expected: { version: versions.get(pEdit.targetKey)! } })
          versions.set(pEdit.targetKey, outcome.version)
        },
      }],
      ['`read` tool', { run: async () => expectOk(await stack.call('read', { file_path: 't-read.txt' }), 'read') }],
      ['`write` tool, create', { run: async () => expectOk(await stack.call('write', { file_path: `t-new-${serial++}.txt`, content: BODY }), 'write') }],
      ['`write` tool, replace', { run: async (round) => expectOk(await stack.call('write', { file_path: 't-replace.txt', content: `${BODY}${round}\n` }), 'write') }],
      ['`edit` tool', {
        run: async (round) => expectOk(await stack.call('edit', { file_path: 't-edit.txt', old_string: MARKER[round % 2]!, new_string: MARKER[(round + 1) % 2]! }), 'edit'),
      }],
    ],
  }
}

/**
 * Every operation runs through the real `e2b` SDK (debug mode) against two envd emulators, one
 * answering at once and one waiting `latencyMs` before each request, interleaved. The emulator
 * counts the requests; the latency the round trips add is the difference of the two medians
 * (the emulator's own work — it spawns a real `bash` per command — cancels out).
 */
export async function runB6(scratch: Scratch): Promise<CaseResult> {
  const latency = config.b6.latencyMs
  const fast = await side(await scratch.dir('b6/fast'), 0)
  const slow = await side(await scratch.dir('b6/slow'), latency)
  const rows: string[][] = []
  const above: string[] = []
  const warmup = 1
  try {
    for (let i = 0; i < fast.operations.length; i++) {
      const [name, fastOp] = fast.operations[i]!
      const slowOp = slow.operations[i]![1]
      const seen = new Set<string>()
      let requests = 0
      const variant = (label: string, s: Side, op: typeof fastOp): Variant => ({
        name: label,
        prepare: async () => {
          await op.prepare?.()
          s.emulator.resetRequests()
        },
        run: async (round) => {
          await op.run(round)
          if (round < warmup) return
          const stats = s.emulator.stats()
          requests = Math.max(requests, Object.values(stats).reduce((a, b) => a + b, 0))
          seen.add(Object.entries(stats).sort().map(([route, n]) => `${n}× ${route.replace(/^POST \/process\.Process\//, '')}`).join(', '))
        },
      })
      const { samples } = await interleave([variant('fast', fast, fastOp), variant('slow', slow, slowOp)], { rounds: config.b6.rounds, warmup })
      const at0 = summarize(samples.fast!)
      const at20 = summarize(samples.slow!)
      const added = at20.median - at0.median
      const minimum = MINIMA[name]!
      if (requests > minimum.requests) above.push(`${name}: ${requests} requests, minimum ${minimum.requests}`)
      const floor = minimum.requests * latency
      rows.push([name, [...seen].join(' / ') || 'none', String(requests), String(minimum.requests), fmtMs(at0, 1), fmtMs(at20, 1),
        `${added.toFixed(1)} ms`, `${floor} ms`, floor === 0 ? '—' : fmtRatio(added / floor), minimum.why])
    }
  } finally {
    for (const s of [fast, slow]) {
      await s.stack.dispose()
      await s.emulator.close()
    }
  }
  const verdicts: Verdict[] = [{
    target: 'requests per operation at the protocol minimum',
    measured: above.length === 0 ? `all ${rows.length} operations at the minimum` : `above the minimum: ${above.join('; ')}`,
    met: above.length === 0,
  }]
  return {
    id: 'B6', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `Requests counted by the envd emulator per operation (${config.b6.rounds} timed rounds; several request mixes are listed when rounds differed). Latency with 0 and ${latency} ms injected before each request, interleaved; "added" = difference of the medians, "floor" = minimum requests × ${latency} ms.`,
      header: ['operation', 'requests seen', 'requests', 'minimum', 'latency, 0 ms injected', `latency, ${latency} ms injected`, 'added', 'floor', 'added ÷ floor', 'why this is the minimum'],
      rows,
    }],
    verdicts,
    notes: [
      'Commands are `process.Process/Start` calls (one server-streaming HTTP request each); uploads are `POST /files`, downloads `GET /files`.',
      'The absolute latencies are dominated by the emulator spawning a real `bash` per command on this machine; a real sandbox has its own costs. Only the request counts and the added latency carry over.',
    ],
  }
}
