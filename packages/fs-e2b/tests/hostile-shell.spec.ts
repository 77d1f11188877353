import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from './support/sandbox'

// The sandbox user's profile is hostile: it prints noise, shadows the tools the scripts use and
// even exits. Control commands must not read it at all.
const sandbox = useEmulatedSandbox()
let provider: Provider

beforeAll(async () => {
  const profile = [
    'echo NOISE-FROM-PROFILE',
    'stat() { echo "81a4 1 1:1:1:1.000000000:1.000000000"; }; export -f stat',
    'ln() { return 0; }; export -f ln',
    'cd /',
    'exit 3',
  ].join('\n')
  for (const name of ['.bash_profile', '.bash_login', '.profile', '.bashrc']) await writeFile(join(sandbox.root, name), profile)
  provider = await startProvider(sandbox.emulator.url)
})
afterAll(() => provider?.dispose())

it('keeps working when the user profile prints, shadows tools and exits', async () => {
  const dir = await freshDir(sandbox.root)
  const target = await provider.fs.resolve(join(dir, 'f.txt'))
  await provider.fs.writeText(target, 'one\n', { expected: { kind: 'createIfAbsent' } })
  const info = await provider.fs.stat(target)
  expect(info).toMatchObject({ type: 'file', size: 4 })
  await provider.fs.editText(target, { oldString: 'one', newString: 'two', replaceAll: false }, { expected: { version: info!.version } })
  expect(await readFile(join(dir, 'f.txt'), 'utf8')).toBe('two\n')
  expect(await provider.fs.readText(target)).toBe('two\n')
})

it('starts in the home directory the sandbox reports, not where a profile would cd', async () => {
  const target = await provider.fs.resolve('relative.txt')
  expect(target.targetKey).toBe(join(sandbox.root, 'relative.txt'))
})

it('handles paths full of shell syntax as plain names', async () => {
  const dir = await freshDir(sandbox.root)
  const names = ["it's.txt", '$(touch PWNED).txt', '`touch PWNED2`.txt', 'semi;colon & amp.txt', 'new\nline.txt', '-dash.txt', '*.txt']
  for (const name of names) {
    const target = await provider.fs.resolve(join(dir, name))
    await provider.fs.writeText(target, name, { expected: { kind: 'createIfAbsent' } })
    await provider.fs.editText(target, { oldString: name, newString: `${name}!`, replaceAll: false })
    expect(await provider.fs.readText(target)).toBe(`${name}!`)
  }
  expect((await readdir(dir)).sort()).toEqual([...names].sort())
  const listed = await provider.fs.listDir(await provider.fs.resolve(dir))
  expect(listed.map((entry) => entry.name).sort()).toEqual([...names].sort())
  expect((await readdir(sandbox.root)).filter((name) => name.includes('PWNED'))).toEqual([])
})
