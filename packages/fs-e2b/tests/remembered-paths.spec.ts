import { FsError } from '@deepseek-ai/dsh-fs'
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { stack } from '@deepseek-ai/dsh-test-kit'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from './support/sandbox'

// `resolveForMutation` names keys from memory; these are the cases where the memory is wrong by the
// time of the write. Each must refuse without writing anything, and the next try must land right.
const sandbox = useEmulatedSandbox()
let provider: Provider
let dir: string

beforeAll(async () => {
  provider = await startProvider(sandbox.emulator.url)
})
afterAll(() => provider?.dispose())
beforeEach(async () => {
  dir = await freshDir(sandbox.root)
})

const onDisk = (name: string) => readFile(join(dir, name), 'utf8')

it('refuses a write through a symlink re-pointed since it was read, writes nothing, and lands on the new file next time', async () => {
  await writeFile(join(dir, 'one.txt'), 'one\n')
  await writeFile(join(dir, 'two.txt'), 'two\n')
  await symlink('one.txt', join(dir, 'link.txt'))
  const seen = await provider.fs.inspect(join(dir, 'link.txt'), { textUpTo: 100 })
  expect(seen.target.targetKey).toBe(join(dir, 'one.txt'))
  await rm(join(dir, 'link.txt'))
  await symlink('two.txt', join(dir, 'link.txt'))

  const remembered = await provider.fs.resolveForMutation(join(dir, 'link.txt'))
  expect(remembered.targetKey).toBe(join(dir, 'one.txt'))
  const error = await provider.fs.writeText(remembered, 'new\n').catch((e: unknown) => e)
  // Unguarded, and still refused: the path names another file now, and no retry can change that.
  expect(FsError.is(error, 'FS_STALE_VERSION')).toBe(true)
  expect([await onDisk('one.txt'), await onDisk('two.txt')]).toEqual(['one\n', 'two\n'])

  const relearned = await provider.fs.resolveForMutation(join(dir, 'link.txt'))
  expect(relearned.targetKey).toBe(join(dir, 'two.txt'))
  await provider.fs.writeText(relearned, 'new\n')
  expect([await onDisk('one.txt'), await onDisk('two.txt')]).toEqual(['one\n', 'new\n'])
})

it('refuses an edit after the directory of a read file was swapped for another', async () => {
  await mkdir(join(dir, 'a'))
  await writeFile(join(dir, 'a', 'f.txt'), 'value = 1\n')
  const seen = await provider.fs.inspect(join(dir, 'a', 'f.txt'), { textUpTo: 100 })
  await rename(join(dir, 'a'), join(dir, 'old-a'))
  await mkdir(join(dir, 'b'))
  await writeFile(join(dir, 'b', 'f.txt'), 'value = 1\n')
  await symlink('b', join(dir, 'a'))

  const target = await provider.fs.resolveForMutation(join(dir, 'a', 'f.txt'))
  const edit = { oldString: 'value = 1', newString: 'value = 2', replaceAll: false }
  const error = await provider.fs.editText(target, edit, { expected: { version: seen.info!.version } }).catch((e: unknown) => e)
  expect(FsError.is(error, 'FS_STALE_VERSION')).toBe(true)
  expect([await onDisk('old-a/f.txt'), await onDisk('b/f.txt')]).toEqual(['value = 1\n', 'value = 1\n'])
  // A create named from the remembered directory is refused too, and nothing appears in either place.
  const fresh = await provider.fs.resolveForMutation(join(dir, 'a', 'new.txt'))
  expect(fresh.targetKey).toBe(join(dir, 'a', 'new.txt'))
  const create = await provider.fs.writeText(fresh, 'x', { expected: { kind: 'createIfAbsent' } }).catch((e: unknown) => e)
  expect(FsError.is(create, 'FS_STALE_VERSION')).toBe(true)
  await expect(readFile(join(dir, 'b', 'new.txt'))).rejects.toThrow()
  await expect(readFile(join(dir, 'old-a', 'new.txt'))).rejects.toThrow()
})

it('through the tools: a create over a never-seen symlink is refused as an existing file, and a re-pointed link asks for a re-read', async () => {
  await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
  dir = tools.dir
  await writeFile(join(dir, 'real.txt'), 'theirs\n')
  await writeFile(join(dir, 'seen.txt'), 'seen\n')
  await symlink('real.txt', join(dir, 'link.txt'))
  // The read teaches the provider the directory; `link.txt` itself it has never seen.
  expect(await tools.call('read', { file_path: 'seen.txt' })).toMatchObject({ isError: false })
  expect(await tools.call('write', { file_path: 'link.txt', content: 'mine\n' })).toMatchObject({ error: { code: 'FS_NOT_OBSERVED' } })
  expect(await onDisk('real.txt')).toBe('theirs\n')

  expect(await tools.call('read', { file_path: 'link.txt' })).toMatchObject({ isError: false })
  await rm(join(dir, 'link.txt'))
  await symlink('seen.txt', join(dir, 'link.txt'))
  expect(await tools.call('edit', { file_path: 'link.txt', old_string: 'theirs', new_string: 'mine' })).toMatchObject({ error: { code: 'FS_STALE_VERSION' } })
  expect([await onDisk('real.txt'), await onDisk('seen.txt')]).toEqual(['theirs\n', 'seen\n'])
  expect(await tools.call('read', { file_path: 'link.txt' })).toMatchObject({ isError: false })
  expect(await tools.call('edit', { file_path: 'link.txt', old_string: 'seen', new_string: 'edited' })).toMatchObject({ isError: false })
  expect([await onDisk('real.txt'), await onDisk('seen.txt')]).toEqual(['theirs\n', 'edited\n'])
})

it('through the tools: a create through a never-seen directory symlink lands where it leads, and the file counts as seen', async () => {
  await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
  dir = tools.dir
  await mkdir(join(dir, 'real'))
  await writeFile(join(dir, 'real', 'theirs.txt'), 'theirs\n')
  await symlink('real', join(dir, 'alias'))
  expect(await tools.call('write', { file_path: 'alias/new.txt', content: 'one\n' })).toMatchObject({ isError: false })
  expect(await onDisk('real/new.txt')).toBe('one\n')
  // Observed under the key it landed at: an edit needs no read first.
  expect(await tools.call('edit', { file_path: 'alias/new.txt', old_string: 'one', new_string: 'two' })).toMatchObject({ isError: false })
  expect(await onDisk('real/new.txt')).toBe('two\n')
  // A file already there through another never-seen symlink is refused, never replaced.
  await symlink('real', join(dir, 'other'))
  expect(await tools.call('write', { file_path: 'other/theirs.txt', content: 'mine\n' })).toMatchObject({ error: { code: 'FS_NOT_OBSERVED' } })
  expect(await onDisk('real/theirs.txt')).toBe('theirs\n')
})
