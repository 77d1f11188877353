import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { race, raceFromOneVersion } from './support/races'
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

it('lets exactly one of several providers win a guarded create; the others fail FS_NOT_OBSERVED', async () => {
  const dir = await freshDir(sandbox.root)
  const path = join(dir, 'contested.txt')
  const { winner } = await race(providers, 'FS_NOT_OBSERVED', async (provider, i) =>
    provider.fs.writeText(await provider.fs.resolve(path), `creator ${i}`, { expected: { kind: 'createIfAbsent' } }))
  expect(await readFile(path, 'utf8')).toBe(`creator ${winner}`)
  expect(await readdir(dir)).toEqual(['contested.txt'])
})

it('lets exactly one of several providers replace from one version; the others fail FS_STALE_VERSION', async () => {
  const dir = await freshDir(sandbox.root)
  const path = join(dir, 'shared.txt')
  const { winner } = await raceFromOneVersion(providers, path, 'base\n', (provider, target, version, i) =>
    provider.fs.writeText(target, `writer ${i}\n`, { expected: { kind: 'replaceIfVersion', version } }))
  expect(await readFile(path, 'utf8')).toBe(`writer ${winner}\n`)
  expect(await readdir(dir)).toEqual(['shared.txt'])
})

it('lets exactly one of several providers edit from one version', async () => {
  const dir = await freshDir(sandbox.root)
  const path = join(dir, 'edited.txt')
  const { winner } = await raceFromOneVersion(providers, path, 'value = 0\n', (provider, target, version, i) =>
    provider.fs.editText(target, { oldString: 'value = 0', newString: `value = ${i + 1}`, replaceAll: false }, { expected: { version } }))
  expect(await readFile(path, 'utf8')).toBe(`value = ${winner + 1}\n`)
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
