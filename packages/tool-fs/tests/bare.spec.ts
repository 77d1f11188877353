import { readFile } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

// Without dsh-fs-policy the intent waterfalls fall through to their `undefined` defaults.
let s: Stack
let guarded: Stack | undefined
afterEach(async () => {
  await s.dispose()
  await guarded?.dispose()
  guarded = undefined
})

it('reads exactly as it does with the policy', async () => {
  s = await stack({ policy: false })
  guarded = await stack({ policy: true })
  const content = 'a\r\nb\n\ufeffc'
  await s.put('a.txt', content)
  await guarded.put('a.txt', content)
  const bare = await s.text('read', { file_path: 'a.txt', limit: 2 })
  expect(bare).toBe(await guarded.text('read', { file_path: 'a.txt', limit: 2 }))
  expect(bare).toContain('offset=3')
})

it('overwrites a file that was never read', async () => {
  s = await stack({ policy: false })
  await s.put('a.txt', 'old\n')
  const result = await s.call('write', { file_path: 'a.txt', content: 'new\n' })
  expect(result.content[0]!.text).toBe(`Updated ${s.path('a.txt')}: changed line 1 (1 line now).\nThe file around the change now reads:\n     1\tnew`)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('new\n')
})

it('edits a file that was never read', async () => {
  s = await stack({ policy: false })
  await s.put('a.txt', 'hello world\n')
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'world', new_string: 'there' })).isError).toBe(false)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('hello there\n')
})

it('fails an edit of a missing file FS_STALE_VERSION and sends the model to re-read', async () => {
  s = await stack({ policy: false })
  const result = await s.call('edit', { file_path: 'gone.txt', old_string: 'a', new_string: 'b' })
  expect(result.error?.code).toBe('FS_STALE_VERSION')
  expect(result.content[0]!.text).toMatch(/; re-read the file, then retry$/)
})

it('still applies the literal match rules', async () => {
  s = await stack({ policy: false })
  await s.put('a.txt', 'x x\n')
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'x', new_string: 'y' })).error?.code).toBe('FS_AMBIGUOUS_EDIT')
  expect((await s.call('edit', { file_path: 'a.txt', old_string: 'z', new_string: 'y' })).error?.code).toBe('FS_EDIT_NOT_FOUND')
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('x x\n')
})
