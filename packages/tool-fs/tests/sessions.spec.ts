import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

it('keeps what one session read from counting for another', async () => {
  s = await stack({ policy: true })
  const other = { cwd: s.dir }
  await s.put('a.txt', 'shared\n')
  await s.call('read', { file_path: 'a.txt' })
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'shared', new_string: 'theirs' }, other)).error?.code).toBe('FS_NOT_OBSERVED')
  expect((await s.call('write', { file_path: 'a.txt', content: 'theirs\n' }, other)).error?.code).toBe('FS_NOT_OBSERVED')
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'shared', new_string: 'mine' })).isError).toBe(false)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('mine\n')
})

it('makes one session stale when another session changes the file', async () => {
  s = await stack({ policy: true })
  const other = { cwd: s.dir }
  await s.put('a.txt', 'base\n')
  await s.call('read', { file_path: 'a.txt' })
  await s.call('read', { file_path: 'a.txt' }, other)
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'base', new_string: 'other' }, other)).isError).toBe(false)
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'base', new_string: 'mine' })).error?.code).toBe('FS_STALE_VERSION')
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('other\n')
})

it('resolves relative paths against the session cwd, else the provider cwd', async () => {
  s = await stack({ policy: true })
  await mkdir(s.path('sub'))
  await s.put('sub/x.txt', 'in sub\n')
  await s.put('x.txt', 'at top\n')
  expect(await s.text('read', { file_path: 'x.txt' }, { cwd: join(s.dir, 'sub') })).toBe('     1\tin sub\n\n[End of file: 1 line.]')
  expect(await s.text('read', { file_path: 'x.txt' }, {})).toBe('     1\tat top\n\n[End of file: 1 line.]')
  const created = await s.text('write', { file_path: 'new.txt', content: 'n' }, { cwd: join(s.dir, 'sub') })
  expect(created).toBe(`Created ${join(s.dir, 'sub', 'new.txt')} (1 line).`)
})
