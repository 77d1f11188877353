import { FsError } from '@deepseek-ai/dsh-fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from './support/sandbox'

// Separate E2BFileSystem instances, each with its own Cordis context and SDK connection: no
// in-process lock is shared, so only the sandbox-side publication (ln -T, flock CAS) decides.
const sandbox = useEmulatedSandbox()
const WRITERS = 6
let providers: Provider[] = []

beforeAll(async () => {
  providers = await Promise.all(Array.from({ length: WRITERS }, () => startProvider(sandbox.emulator.url)))
})
afterAll(() => Promise.all(providers.map((provider) => provider.dispose())))

function winnersOf(results: PromiseSettledResult<unknown>[]): number[] {
  return results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []))
}

it('lets exactly one of several providers win a guarded create; the others fail FS_NOT_OBSERVED', async () => {
  const dir = await freshDir(sandbox.root)
  const path = join(dir, 'contested.txt')
  const results = await Promise.allSettled(providers.map(async (provider, i) =>
    provider.fs.writeText(await provider.fs.resolve(path), `creator ${i}`, { kind: 'createIfAbsent' })))
  const winners = winnersOf(results)
  expect(winners).toHaveLength(1)
  for (const result of results) {
    if (result.status === 'rejected') expect(FsError.is(result.reason, 'FS_NOT_OBSERVED'), String(result.reason)).toBe(true)
  }
  expect(await readFile(path, 'utf8')).toBe(`creator ${winners[0]}`)
  expect(await readdir(dir)).toEqual(['contested.txt'])
})

it('lets exactly one of several providers replace from one version; the others fail FS_STALE_VERSION', async () => {
  const dir = await freshDir(sandbox.root)
  const path = join(dir, 'shared.txt')
  await writeFile(path, 'base\n')
  const targets = await Promise.all(providers.map((provider) => provider.fs.resolve(path)))
  const version = (await providers[0]!.fs.stat(targets[0]!))!.version
  const results = await Promise.allSettled(providers.map((provider, i) =>
    provider.fs.writeText(targets[i]!, `writer ${i}\n`, { kind: 'replaceIfVersion', version })))
  const winners = winnersOf(results)
  expect(winners).toHaveLength(1)
  for (const result of results) {
    if (result.status === 'rejected') expect(FsError.is(result.reason, 'FS_STALE_VERSION'), String(result.reason)).toBe(true)
  }
  expect(await readFile(path, 'utf8')).toBe(`writer ${winners[0]}\n`)
  expect(await readdir(dir)).toEqual(['shared.txt'])
})

it('lets exactly one of several providers edit from one version', async () => {
  const dir = await freshDir(sandbox.root)
  const path = join(dir, 'edited.txt')
  await writeFile(path, 'value = 0\n')
  const targets = await Promise.all(providers.map((provider) => provider.fs.resolve(path)))
  const version = (await providers[0]!.fs.stat(targets[0]!))!.version
  const results = await Promise.allSettled(providers.map((provider, i) =>
    provider.fs.editText(targets[i]!, { oldString: 'value = 0', newString: `value = ${i + 1}`, replaceAll: false }, { version })))
  const winners = winnersOf(results)
  expect(winners).toHaveLength(1)
  for (const result of results) {
    if (result.status === 'rejected') expect(FsError.is(result.reason, 'FS_STALE_VERSION'), String(result.reason)).toBe(true)
  }
  expect(await readFile(path, 'utf8')).toBe(`value = ${winners[0]! + 1}\n`)
})

it('loses no unguarded edit when several providers edit one file at once', async () => {
  const dir = await freshDir(sandbox.root)
  const path = join(dir, 'letters.txt')
  const letters = 'abcdef'.split('').slice(0, WRITERS)
  await writeFile(path, letters.join(' '))
  await Promise.all(providers.map(async (provider, i) => {
    const letter = letters[i]!
    await provider.fs.editText(await provider.fs.resolve(path), { oldString: letter, newString: letter.toUpperCase(), replaceAll: false })
  }))
  expect(await readFile(path, 'utf8')).toBe(letters.join(' ').toUpperCase())
})
