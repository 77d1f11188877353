import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
import { race, raceFromOneVersion } from '../support/races'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from '../support/sandbox'

// Separate E2BFileSystem instances, each with its own Cordis context and SDK connection, against
// the envd emulator: only the sandbox-side publication (ln -T, flock CAS) decides who wins.
const sandbox = useEmulatedSandbox()
const ROUNDS = sized(5, 100)
// Edits go through the same flock CAS as replacements; fewer rounds keep the stress run in budget.
const EDIT_ROUNDS = sized(5, 30)
const RACERS = 4
let providers: Provider[] = []
const tally = { create: 0, replace: 0, edit: 0, losers: new Map<string, number>() }

beforeAll(async () => {
  providers = await Promise.all(Array.from({ length: RACERS }, () => startProvider(sandbox.emulator.url)))
}, 60_000)
afterAll(() => Promise.all(providers.map((provider) => provider.dispose())))

function tallyLosers(code: string, losers: number): void {
  tally.losers.set(code, (tally.losers.get(code) ?? 0) + losers)
}

it(`lets exactly one of ${RACERS} E2B providers win each guarded create, for ${ROUNDS} rounds`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const dir = await freshDir(sandbox.root)
    const path = join(dir, 'contested.txt')
    const targets = await Promise.all(providers.map((provider) => provider.fs.resolve(path)))
    const { winner, losers } = await race(providers, 'FS_NOT_OBSERVED', (provider, i) =>
      provider.fs.writeText(targets[i]!, `creator ${i}\n`.repeat(500), { expected: { kind: 'createIfAbsent' } }), `create round ${round}`)
    tallyLosers('FS_NOT_OBSERVED', losers)
    expect(await readFile(path, 'utf8')).toBe(`creator ${winner}\n`.repeat(500))
    expect(await readdir(dir)).toEqual(['contested.txt'])
    tally.create++
  }
}, STRESS ? 600_000 : 120_000)

it(`lets exactly one of ${RACERS} E2B providers replace from one version, for ${ROUNDS} rounds`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const path = join(await freshDir(sandbox.root), 'shared.txt')
    const { winner, losers } = await raceFromOneVersion(providers, path, 'base\n', (provider, target, version, i) =>
      provider.fs.writeText(target, `writer ${i}\n`, { expected: { kind: 'replaceIfVersion', version } }), `replace round ${round}`)
    tallyLosers('FS_STALE_VERSION', losers)
    // No lost update: the one reported success is what the sandbox holds.
    expect(await readFile(path, 'utf8')).toBe(`writer ${winner}\n`)
    tally.replace++
  }
}, STRESS ? 600_000 : 120_000)

it(`lets exactly one of ${RACERS} E2B providers edit from one version, for ${EDIT_ROUNDS} rounds`, async () => {
  for (let round = 0; round < EDIT_ROUNDS; round++) {
    const path = join(await freshDir(sandbox.root), 'edited.txt')
    const { winner, losers } = await raceFromOneVersion(providers, path, 'value = 0\n', (provider, target, version, i) =>
      provider.fs.editText(target, { oldString: 'value = 0', newString: `value = ${i + 1}`, replaceAll: false }, { expected: { version } }),
    `edit round ${round}`)
    tallyLosers('FS_STALE_VERSION', losers)
    expect(await readFile(path, 'utf8')).toBe(`value = ${winner + 1}\n`)
    tally.edit++
  }
}, STRESS ? 600_000 : 120_000)

afterAll(async () => {
  await recordSection({
    id: '7-races-e2b',
    title: 'Races between providers on the E2B emulator',
    method: `${RACERS} E2BFileSystem instances (own Cordis context and SDK connection each) race the same operation against `
      + 'the envd emulator through the real e2b SDK; each round checks the number of winners, the losers\' codes and the bytes '
      + 'in the sandbox directory.',
    facts: [
      ['guarded-create rounds (exactly one winner each)', tally.create],
      ['replaceIfVersion rounds (exactly one winner each)', tally.replace],
      ['version-guarded edit rounds (exactly one winner each)', tally.edit],
      ...[...tally.losers.entries()].map(([code, n]): [string, number] => [`losers with ${code}`, n]),
      ['lost updates', 0],
    ],
  })
})
