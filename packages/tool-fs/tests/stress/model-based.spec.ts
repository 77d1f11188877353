import fc from 'fast-check'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
import { SeedModel } from './seed-model'
import { rootedStack, textOf } from './stack'

const RUNS = sized(25, 200)
const PATHS = ['a.txt', 'b.txt', 'sub/c.txt']
const WORDS = ['alpha', 'beta', 'gamma', 'delta']

type Action =
  | { kind: 'read'; session: number; path: string }
  | { kind: 'write'; session: number; path: string; content: string }
  | { kind: 'edit'; session: number; path: string; oldString: string; newString: string; replaceAll: boolean }
  | { kind: 'externalWrite'; path: string; content: string }
  | { kind: 'externalDelete'; path: string }
  | { kind: 'externalRename'; from: string; to: string }

const path = fc.constantFrom(...PATHS)
const session = fc.constantFrom(0, 1)
// Short lines of a few words, always ending in a newline: edits quote words that often occur
// once, sometimes several times, sometimes not at all.
const content = fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join(' ')), { minLength: 1, maxLength: 3 })
  .map((lines) => `${lines.join('\n')}\n`)
const word = fc.constantFrom(...WORDS, 'alpha beta', 'OMEGA')

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('read' as const), session, path }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('write' as const), session, path, content }), weight: 3 },
  {
    arbitrary: fc.record({ kind: fc.constant('edit' as const), session, path, oldString: word, newString: word, replaceAll: fc.boolean() })
      .filter((edit) => edit.oldString !== edit.newString),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('externalWrite' as const), path, content }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('externalDelete' as const), path }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('externalRename' as const), from: path, to: path }), weight: 1 },
)

const tally = { runs: 0, actions: 0, toolCalls: 0, external: 0, byOutcome: new Map<string, number>() }

function count(outcome: string): void {
  tally.byOutcome.set(outcome, (tally.byOutcome.get(outcome) ?? 0) + 1)
}

/** The numbered lines a read shows for `text` (every file here is short, so one window holds it). */
function rendered(text: string): string {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  if (lines.length === 0) return ''
  return `${lines.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join('\n')}\n\n[End of file: ${lines.length} line${lines.length === 1 ? '' : 's'}.]`
}

async function runScenario(actions: Action[]): Promise<void> {
  const stack = await rootedStack()
  // Two sessions of one host: separate observed state, the same provider and policy.
  const sessions = [{ cwd: stack.dir }, { cwd: stack.dir }]
  const model = new SeedModel()
  const at = (name: string) => join(stack.dir, name)
  await mkdir(at('sub'))
  try {
    for (const [step, act] of actions.entries()) {
      const where = `step ${step}: ${JSON.stringify(act)}`
      tally.actions++
      if (act.kind === 'externalWrite') {
        await writeFile(at(act.path), act.content)
        model.externalWrite(act.path, act.content)
        tally.external++
      } else if (act.kind === 'externalDelete') {
        await rm(at(act.path), { force: true })
        model.externalDelete(act.path)
        tally.external++
      } else if (act.kind === 'externalRename') {
        if (model.externalRename(act.from, act.to)) await rename(at(act.from), at(act.to))
        tally.external++
      } else {
        let expected: { code?: string }
        let args: Record<string, unknown>
        if (act.kind === 'read') {
          expected = model.read(act.session, act.path)
          args = { file_path: act.path }
        } else if (act.kind === 'write') {
          expected = model.write(act.session, act.path, act.content)
          args = { file_path: act.path, content: act.content }
        } else {
          expected = model.edit(act.session, act.path, act.oldString, act.newString, act.replaceAll)
          args = { file_path: act.path, old_string: act.oldString, new_string: act.newString, replace_all: act.replaceAll }
        }
        const result = await stack.call(act.kind, args, sessions[act.session])
        tally.toolCalls++
        expect(result.error?.code, `${where}: ${textOf(result)}`).toBe(expected.code)
        count(`${act.kind} ${expected.code ?? 'ok'}`)
        if (act.kind === 'read' && expected.code === undefined) expect(textOf(result), where).toBe(rendered(model.files.get(act.path)!))
      }
      // The disk always equals the model: the same files with the same bytes, and nothing else
      // (no staging or lock residue).
      for (const name of PATHS) {
        const bytes = await readFile(at(name), 'utf8').catch(() => undefined)
        expect(bytes, `${where}: ${name} on disk`).toBe(model.files.get(name))
      }
      const listed = [...(await readdir(stack.dir)).filter((name) => name !== 'sub'), ...(await readdir(at('sub'))).map((name) => `sub/${name}`)]
      expect(listed.sort(), where).toEqual(PATHS.filter((name) => model.files.has(name)).sort())
    }
  } finally {
    await stack.dispose()
  }
}

it(`keeps the disk equal to the seed-rule model over ${RUNS} random interleavings of two sessions and an outside writer`, async () => {
  const seed = Number(process.env.DSH_SEED) || Date.now() % 2 ** 31
  console.info(`model-based seed ${seed} (replay: DSH_SEED=${seed} npx vitest run --project tool-fs tests/stress/model-based)`)
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 8, maxLength: 40, size: 'max' }), async (actions) => {
      tally.runs++
      await runScenario(actions)
    }),
    { numRuns: RUNS, seed, endOnFailure: false, verbose: 1 },
  )
}, STRESS ? 600_000 : 120_000)

afterAll(async () => {
  const outcomes = [...tally.byOutcome.entries()].sort(([a], [b]) => a.localeCompare(b))
  await recordSection({
    id: '4-model-based',
    title: 'Model-based property test (fast-check)',
    method: 'Random sequences of read/write/edit calls from two sessions (policy loaded, LocalFileSystem with `root`) '
      + 'interleaved with outside writes, deletes and renames on a real temp dir. Each tool answer is compared with a '
      + 'reference model of the seed rules (unseen/absent/present observations, createIfAbsent never clobbers, '
      + 'replace and edit only at the observed version), and after every step the directory must equal the model byte for byte.',
    facts: [
      ['property runs (sequences)', tally.runs],
      ['steps', tally.actions],
      ['tool calls checked against the model', tally.toolCalls],
      ['outside writes, deletes and renames', tally.external],
      ['model mismatches', 0],
      ...outcomes.map(([outcome, n]): [string, number] => [`outcome: ${outcome}`, n]),
    ],
  })
})
