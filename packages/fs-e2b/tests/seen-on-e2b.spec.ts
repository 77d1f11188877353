import { type Stack, stack } from '@deepseek-ai/dsh-test-kit'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'

// The policy's seen rule with E2BFileSystem (the real SDK against the envd emulator): what the
// tools show and write is recorded the same way, whatever the provider.
let s: Stack
afterEach(() => s.dispose())

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const onDisk = (name: string) => readFile(join(s.dir, name), 'utf8')

it.each([256 * 1024, 0])('refuses a whole write of a file seen in part, then allows it once every line was read (stream threshold %i)', async (threshold) => {
  s = await stack({ provider: 'e2b', tools: ['tool-fs'], policyConfig: { seenBeforeReplace: true }, toolFs: { readStreamThreshold: threshold, readLimit: 100 } })
  await writeFile(join(s.dir, 'big.txt'), numbered(150))
  await s.ok('read', { file_path: 'big.txt', offset: 10, limit: 5 })
  const refused = await s.call('write', { file_path: 'big.txt', content: 'new\n' })
  expect(refused.error?.code).toBe('FS_NOT_SEEN')
  expect(refused.content[0]!.text).toContain('has been shown lines 10-14')
  expect(refused.content[0]!.text).toContain('dsh `read` tool with offset=1 (')
  expect(await onDisk('big.txt')).toBe(numbered(150))
  await s.ok('read', { file_path: 'big.txt', offset: 1 })
  expect(await s.text('write', { file_path: 'big.txt', content: 'new\n' })).toContain('offset=101')
  await s.ok('read', { file_path: 'big.txt', offset: 101 })
  await s.ok('write', { file_path: 'big.txt', content: 'new\n' })
  expect(await onDisk('big.txt')).toBe('new\n')
})

it('lets edit change a file seen in part, and carries what was seen over an edit of a file read whole', async () => {
  s = await stack({ provider: 'e2b', tools: ['tool-fs'], policyConfig: { seenBeforeReplace: true } })
  await writeFile(join(s.dir, 'a.txt'), numbered(30))
  await s.ok('read', { file_path: 'a.txt', offset: 5, limit: 2 })
  await s.ok('edit', { file_path: 'a.txt', old_string: 'line 6\n', new_string: 'six\n' })
  expect((await s.call('write', { file_path: 'a.txt', content: 'new\n' })).error?.code).toBe('FS_NOT_SEEN')
  await s.ok('read', { file_path: 'a.txt' })
  await s.ok('multi_edit', { file_path: 'a.txt', edits: [{ old_string: 'line 1\n', new_string: 'one\n' }, { old_string: 'line 30\n', new_string: '' }] })
  await s.ok('write', { file_path: 'a.txt', content: 'new\n' })
  expect(await onDisk('a.txt')).toBe('new\n')
})
