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
