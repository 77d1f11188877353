import type { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import { stack } from '@deepseek-ai/dsh-test-kit'
import { readFile, writeFile } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { beforeEachPublish } from './hooks'

// apply_patch's promise on the local disk once publishing has started: another process that
// changes a later file after the whole patch was checked stops the patch at that file, whose
// change is refused (never overwritten), and the result names exactly what changed before it.
it('stops apply_patch at a file another process changed after the check, keeping that change', async () => {
  await using s = await stack({ provider: 'local', rooted: true, tools: ['tool-fs'], toolFs: { applyPatch: true } })
  await writeFile(s.path('a.txt'), 'a\n')
  await writeFile(s.path('b.txt'), 'b\n')
  await writeFile(s.path('c.txt'), 'c\n')
  for (const name of ['a.txt', 'b.txt', 'c.txt']) await s.ok('read', { file_path: name })
  let fired = false
  // Between a.txt's staging and its publication: the patch has been checked whole by then.
  beforeEachPublish((s.fs as LocalFileSystem).disk, async () => {
    if (fired) return
    fired = true
    await writeFile(s.path('b.txt'), 'b, theirs\n')
  })
  const input = ['*** Begin Patch', '*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-b', '+B',
    '*** Update File: c.txt', '@@', '-c', '+C', '*** End Patch'].join('\n')
  const result = await s.call('apply_patch', { input })
  expect(result.error?.code).toBe('FS_STALE_VERSION')
  const text = result.content.map((part) => part.text).join('')
  expect(text).toMatch(/^apply_patch stopped partway: 1 file was changed before .*b\.txt failed\./)
  expect(text).toMatch(/Failed, unchanged: .*b\.txt: /)
  expect(text).toMatch(/Not attempted, unchanged: .*c\.txt\./)
  expect(await readFile(s.path('a.txt'), 'utf8')).toBe('A\n')
  expect(await readFile(s.path('b.txt'), 'utf8')).toBe('b, theirs\n')
  expect(await readFile(s.path('c.txt'), 'utf8')).toBe('c\n')
})
