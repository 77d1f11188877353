import { FsError } from '@deepseek-ai/dsh-fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
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

function winnerOf(results: PromiseSettledResult<unknown>[], loserCode: string, label: string): number {
  const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []))
  const reasons = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []))
  expect(winners.length, `${label}: ${reasons.map(String).join('; ')}`).toBe(1)
  for (const reason of reasons) {
    expect(FsError.is(reason, loserCode as never), `${label}: ${String(reason)}`).toBe(true)
    tally.losers.set(loserCode, (tally.losers.get(loserCode) ?? 0) + 1)
  }
  return winners[0]!
}

it(`lets exactly one of ${RACERS} E2B providers win each guarded create, for ${ROUNDS} rounds`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const dir = await freshDir(sandbox.root)
    const path = join(dir, 'contested.txt')
    const targets = await Promise.all(providers.map((provider) => provider.fs.resolve(path)))
    const results = await Promise.allSettled(providers.map((provider, i) =>
      provider.fs.writeText(targets[i]!, `creator ${i}\n`.repeat(500), { kind: 'createIfAbsent' })))
    const winner = winnerOf(results, 'FS_NOT_OBSERVED', `create round ${round}`)
    expect(await readFile(path, 'utf8')).toBe(`creator ${winner}\n`.repeat(500))
    expect(await readdir(dir)).toEqual(['contested.txt'])
    tally.create++
  }
}, STRESS ? 600_000 : 120_000)

it(`lets exactly one of ${RACERS} E2B providers replace from one version, for ${ROUNDS} rounds`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const dir = await freshDir(sandbox.root)
    const path = join(dir, 'shared.txt')
    await writeFile(path, 'base\n')
    const targets = await Promise.all(providers.map((provider) => provider.fs.resolve(path)))
    const version = (await providers[0]!.fs.stat(targets[0]!))!.version
    const results = await Promise.allSettled(providers.map((provider, i) =>
      provider.fs.writeText(targets[i]!, `writer ${i}\n`, { kind: 'replaceIfVersion', version })))
    const winner = winnerOf(results, 'FS_STALE_VERSION', `replace round ${round}`)
    // No lost update: the one reported success is what the sandbox holds.
    expect(await readFile(path, 'utf8')).toBe(`writer ${winner}\n`)
    tally.replace++
  }
}, STRESS ? 600_000 : 120_000)

it(`lets exactly one of ${RACERS} E2B providers edit from one version, for ${EDIT_ROUNDS} rounds`, async () => {
  for (let round = 0; round < EDIT_ROUNDS; round++) {
    const dir = await freshDir(sandbox.root)
    const path = join(dir, 'edited.txt')
    await writeFile(path, 'value = 0\n')
    const targets = await Promise.all(providers.map((provider) => provider.fs.resolve(path)))
    const version = (await providers[0]!.fs.stat(targets[0]!))!.version
    const results = await Promise.allSettled(providers.map((provider, i) =>
      provider.fs.editText(targets[i]!, { oldString: 'value = 0', newString: `value = ${i + 1}`, replaceAll: false }, { version })))
    const winner = winnerOf(results, 'FS_STALE_VERSION', `edit round ${round}`)
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
