import { readdir } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { stack as assembled, type Stack } from '@deepseek-ai/dsh-test-kit'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

const both = () => assembled({ rooted: true })

it('answers ~/x with the path under the working directory, and creates nothing named ~', async () => {
  s = await both()
  await s.put('notes.md', 'hello\n')
  const read = await s.call('read', { file_path: '~/notes.md' })
  expect(read.error?.code).toBe('FS_INVALID_PATH')
  expect(read.content[0]!.text).toBe('`~/notes.md` starts with ~, a shell\'s home directory, which dsh does not expand; nothing was done. '
    + `The path you most likely mean is ${s.path('notes.md')} (it exists): call again with file_path=\`${s.path('notes.md')}\`.`)
  const write = await s.call('write', { file_path: '~/new.md', content: 'x\n' })
  expect(write.content[0]!.text).toContain(`The path you most likely mean is ${s.path('new.md')}: call again with file_path=\`${s.path('new.md')}\`.`)
  expect(await readdir(s.dir)).toEqual(['notes.md'])
})

it('answers a backslash path with the slash path, unless a file of that literal name exists', async () => {
  s = await both()
  await s.put('src/util.js', 'a\n')
  const created = await s.call('str_replace_editor', { command: 'create', path: 'src\\new.js', file_text: 'x\n' })
  expect(created.error?.code).toBe('FS_INVALID_PATH')
  expect(created.content[0]!.text).toContain(`call again with path=\`${s.path('src/new.js')}\``)
  expect(await readdir(s.path('src'))).toEqual(['util.js'])
  await s.put('a\\b.txt', 'literal\n')
  expect(await s.ok('read', { file_path: 'a\\b.txt' })).toContain('literal')
})

it('answers a file:// URL with its path, and one outside the root as outside', async () => {
  s = await both()
  await s.put('notes.md', 'hello\n')
  const url = await s.call('read', { file_path: `file://${s.path('notes.md')}` })
  expect(url.content[0]!.text).toContain(`call again with file_path=\`${s.path('notes.md')}\`.`)
  const outside = await s.call('grep', { pattern: 'x', path: `file://${s.outside}` })
  expect(outside.error?.code).toBe('FS_OUTSIDE_ROOT')
  expect(outside.content[0]!.text).toMatch(/is outside the root: use a path inside the workspace\.$/)
})

it('names no internal operation when grep is given a missing path', async () => {
  s = await both()
  const text = (await s.call('grep', { pattern: 'x', path: 'nope' })).content[0]!.text
  expect(text).toBe(`${s.path('nope')} does not exist; check the path: the dsh \`list\` tool with no path shows what exists in the working directory`)
})

it('names a file swapped for a symbolic link since the read as a link, in both families, and the read then works', async () => {
  s = await both()
  const { rm, symlink } = await import('node:fs/promises')
  await s.put('real.txt', 'one\n')
  await s.put('a.txt', 'one\n')
  await s.ok('read', { file_path: 'a.txt' })
  await rm(s.path('a.txt'))
  await symlink(s.path('real.txt'), s.path('a.txt'))
  const edit = await s.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })
  expect(edit.content[0]!.text).toBe(`${s.path('a.txt')} is a symbolic link, so the change would land in the file it points to, which has not been read `
    + 'in this session (the dsh `read` tool shows it through the link); read the file, then retry')
  const replace = await s.call('str_replace_editor', { command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'two' })
  expect(replace.content[0]!.text).toContain('is a symbolic link, so the change would land in the file it points to')
  await s.ok('read', { file_path: 'a.txt' })
  await s.ok('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })
  expect((await s.bytes('real.txt'))!.toString()).toBe('two\n')
})

it('refuses a change to a file larger than the provider changes by its size, before any read-first rule, in both families', async () => {
  s = await assembled({ rooted: true, maxTextBytes: 1000 })
  await s.put('big.txt', `${'x'.repeat(2000)}\n`)
  const edit = await s.call('edit', { file_path: 'big.txt', old_string: 'x', new_string: 'y' })
  expect(edit.error?.code).toBe('FS_TOO_LARGE')
  expect(edit.content[0]!.text).toBe(`${s.path('big.txt')} is 2.0 KiB, above the 1000 bytes limit for a text file the tools change, so no edit or write of it can succeed; `
    + 'it can still be read in windows, and a change to it must be made another way.')
  const replace = await s.call('str_replace_editor', { command: 'str_replace', path: 'big.txt', old_str: 'x', new_str: 'y' })
  expect(replace.error?.code).toBe('FS_TOO_LARGE')
  expect((await s.bytes('big.txt'))!.toString()).toBe(`${'x'.repeat(2000)}\n`)
})
