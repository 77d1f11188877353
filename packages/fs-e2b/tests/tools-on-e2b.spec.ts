import { type Stack, stack } from '@deepseek-ai/dsh-test-kit'
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'

// The model-facing tools, unchanged, over E2B: the stack of the default agent config with
// E2BFileSystem (through the real SDK, against the envd emulator) in place of the local provider.
let s: Stack
let dir: string

beforeEach(async () => {
  s = await stack({ provider: 'e2b', tools: ['tool-fs'] })
  dir = s.dir
})
afterEach(() => s.dispose())

const call = (name: string, args: unknown) => s.call(name, args)
const onDisk = (name: string) => readFile(join(dir, name), 'utf8')

it('recovers from an external deletion: stale edit, re-read finds absence, edit refused, write recreates', async () => {
  await writeFile(join(dir, 'a.txt'), 'one\ntwo\n')
  expect((await call('read', { file_path: 'a.txt' })).isError).toBe(false)
  await rm(join(dir, 'a.txt'))

  const stale = await call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'ONE' })
  expect(stale.error?.code).toBe('FS_STALE_VERSION')
  expect((await call('read', { file_path: 'a.txt' })).error?.code).toBe('FS_NOT_FOUND')
  expect((await call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'ONE' })).error?.code).toBe('FS_NOT_FOUND')

  const created = await call('write', { file_path: 'a.txt', content: 'fresh\n' })
  expect(created.isError).toBe(false)
  expect(await onDisk('a.txt')).toBe('fresh\n')
  expect((await call('edit', { file_path: 'a.txt', old_string: 'fresh', new_string: 'fresher' })).isError).toBe(false)
  expect(await onDisk('a.txt')).toBe('fresher\n')
})

it('catches a same-size external rewrite with a restored mtime, then edits after the re-read', async () => {
  await writeFile(join(dir, 'a.txt'), 'value = 1\n')
  await call('read', { file_path: 'a.txt' })
  const before = await stat(join(dir, 'a.txt'))
  await writeFile(join(dir, 'a.txt'), 'value = 2\n')
  await utimes(join(dir, 'a.txt'), before.atime, before.mtime)

  const stale = await call('edit', { file_path: 'a.txt', old_string: 'value = 2', new_string: 'value = 3' })
  expect(stale.error?.code).toBe('FS_STALE_VERSION')
  expect(await onDisk('a.txt')).toBe('value = 2\n')
  await call('read', { file_path: 'a.txt' })
  expect((await call('edit', { file_path: 'a.txt', old_string: 'value = 2', new_string: 'value = 3' })).isError).toBe(false)
  expect(await onDisk('a.txt')).toBe('value = 3\n')
})

it('lets a competitor that recreates the file first win: the write fails FS_NOT_OBSERVED and loses nothing', async () => {
  await writeFile(join(dir, 'a.txt'), 'mine\n')
  await call('read', { file_path: 'a.txt' })
  await rm(join(dir, 'a.txt'))
  expect((await call('read', { file_path: 'a.txt' })).error?.code).toBe('FS_NOT_FOUND')
  await writeFile(join(dir, 'a.txt'), 'theirs\n')
  expect((await call('write', { file_path: 'a.txt', content: 'recreated\n' })).error?.code).toBe('FS_NOT_OBSERVED')
  expect(await onDisk('a.txt')).toBe('theirs\n')
})

it('refuses to overwrite or edit a file the session never read', async () => {
  await writeFile(join(dir, 'a.txt'), 'untouched\n')
  expect((await call('write', { file_path: 'a.txt', content: 'clobber\n' })).error?.code).toBe('FS_NOT_OBSERVED')
  expect((await call('edit', { file_path: 'a.txt', old_string: 'untouched', new_string: 'x' })).error?.code).toBe('FS_NOT_OBSERVED')
  expect(await onDisk('a.txt')).toBe('untouched\n')
})
