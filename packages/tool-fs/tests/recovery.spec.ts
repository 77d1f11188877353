import { readFile, rm, writeFile } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

it('recovers from an external deletion: stale, re-read finds absence, edit refused, write recreates', async () => {
  s = await stack({ policy: true })
  await s.put('a.txt', 'one\ntwo\n')
  expect((await s.call('read', { file_path: 'a.txt' })).isError).toBe(false)
  await rm(s.path('a.txt'))

  const stale = await s.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'ONE' })
  expect(stale.error?.code).toBe('FS_STALE_VERSION')
  expect(stale.content[0]!.text).toMatch(/; re-read the file, then retry$/)

  const reread = await s.call('read', { file_path: 'a.txt' })
  expect(reread.error?.code).toBe('FS_NOT_FOUND')

  s.log.calls.length = 0
  const refused = await s.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'ONE' })
  expect(refused.error?.code).toBe('FS_NOT_FOUND')
  expect(refused.content[0]!.text).toMatch(/; create it with the dsh `write` tool$/)
  // The policy refused from its memory of the absence: the provider was never asked to edit; one
  // stat on this failure path checks that memory against the disk before "does not exist" is said.
  expect(s.log.calls).toEqual(['resolve', 'stat'])

  const created = await s.call('write', { file_path: 'a.txt', content: 'fresh\n' })
  expect(created.content[0]!.text).toBe(`Created ${s.path('a.txt')} (1 line).`)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('fresh\n')

  // The create recorded the new version: an edit works without another read.
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'fresh', new_string: 'fresher' })).isError).toBe(false)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('fresher\n')
})

it('lets a competitor that creates the file first win: the write fails FS_NOT_OBSERVED and loses nothing', async () => {
  s = await stack({ policy: true })
  await s.put('a.txt', 'mine\n')
  await s.call('read', { file_path: 'a.txt' })
  await rm(s.path('a.txt'))
  expect((await s.call('read', { file_path: 'a.txt' })).error?.code).toBe('FS_NOT_FOUND')
  await writeFile(s.path('a.txt'), 'theirs\n')

  const lost = await s.call('write', { file_path: 'a.txt', content: 'recreated\n' })
  expect(lost.error?.code).toBe('FS_NOT_OBSERVED')
  expect(lost.content[0]!.text).toMatch(/; read the file, then retry$/)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('theirs\n')

  // Following the remedy works.
  await s.call('read', { file_path: 'a.txt' })
  expect((await s.call('write', { file_path: 'a.txt', content: 'recreated\n' })).isError).toBe(false)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('recreated\n')
})

it('refuses a write based on a version that changed, keeping the other writer\'s bytes', async () => {
  s = await stack({ policy: true })
  await s.put('a.txt', 'v1\n')
  await s.call('read', { file_path: 'a.txt' })
  await s.put('a.txt', 'v2 from a formatter\n')
  const result = await s.call('write', { file_path: 'a.txt', content: 'based on v1\n' })
  expect(result.error?.code).toBe('FS_STALE_VERSION')
  expect(result.content[0]!.text).toMatch(/; re-read the file, then retry$/)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('v2 from a formatter\n')
})

it('refuses to overwrite or edit a file this session never read', async () => {
  s = await stack({ policy: true })
  await s.put('a.txt', 'untouched\n')
  expect((await s.call('write', { file_path: 'a.txt', content: 'clobber\n' })).error?.code).toBe('FS_NOT_OBSERVED')
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'untouched', new_string: 'x' })).error?.code).toBe('FS_NOT_OBSERVED')
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('untouched\n')
})
