import { mkdir } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { stack as both } from '@deepseek-ai/dsh-test-kit'
import { stack } from './harness'

it('refuses multi_edit on a directory by naming it, not by sending the model to read it first', async () => {
  const s = await stack({ policy: true, rooted: true })
  try {
    await mkdir(s.path('src'))
    const result = await s.call('multi_edit', { file_path: 'src', edits: [{ old_string: 'a', new_string: 'b' }] })
    expect(result.error?.code).toBe('FS_NOT_REGULAR_FILE')
    expect(result.content[0]!.text).toMatch(/is a directory, not a file; pass the path of a file in it/)
  } finally {
    await s.dispose()
  }
})

it('shows a failed step its closest text as it reads after the earlier steps, and writes nothing', async () => {
  const s = await stack({ policy: true, rooted: true })
  try {
    await s.put('a.py', 'a = 1\nb = 2\n')
    await s.call('read', { file_path: 'a.py' })
    // edits[0] turns line 1 into two lines, so b = 2 is line 3 of the text edits[1] met (line 2 on disk).
    const result = await s.call('multi_edit', { file_path: 'a.py', edits: [
      { old_string: 'a = 1', new_string: 'a = 1\nc = 3' },
      { old_string: 'b = 2 ', new_string: 'b = 20' },
    ] })
    expect(result.error?.code).toBe('FS_EDIT_NOT_FOUND')
    const text = result.content[0]!.text
    expect(text).toMatch(/^edits\[1\]: old_string was not found in .*a\.py \(after edits\[0\.\.0\] were applied to the text\)/)
    expect(text).toContain('The closest text is line 3 of that text:\n     3\tb = 2')
    expect((await s.bytes('a.py'))?.toString()).toBe('a = 1\nb = 2\n')
  } finally {
    await s.dispose()
  }
})

it('names the earlier step that changed the text a later step quotes, with those lines as they now read', async () => {
  const s = await stack({ policy: true, rooted: true })
  try {
    await s.put('a.py', 'a = 1\nb = 2\nc = 3\n')
    await s.ok('read', { file_path: 'a.py' })
    const result = await s.call('multi_edit', { file_path: 'a.py', edits: [
      { old_string: 'a = 1\nb = 2', new_string: 'a = 10\nb = 5' },
      { old_string: 'b = 2', new_string: 'b = 3' },
    ] })
    expect(result.error?.code).toBe('FS_EDIT_NOT_FOUND')
    expect(result.content[0]!.text).toBe(`edits[1]: old_string is in ${s.path('a.py')}, but edits[0] changed it first: after it, lines 1-2 read:\n`
      + '     1\ta = 10\n     2\tb = 5\n'
      + 'Make this change in the new_string of edits[0], or quote the text as it reads after it. Nothing was written.')
    expect((await s.bytes('a.py'))!.toString()).toBe('a = 1\nb = 2\nc = 3\n')
  } finally {
    await s.dispose()
  }
})

it('answers an edit of an empty file with the call that gives it content, in both families', async () => {
  const s = await both({ rooted: true })
  try {
    await s.put('empty.txt', '')
    await s.ok('read', { file_path: 'empty.txt' })
    const edit = await s.call('edit', { file_path: 'empty.txt', old_string: 'a', new_string: 'b' })
    expect(edit.content[0]!.text).toBe(`${s.path('empty.txt')} is empty (0 lines), so old_string matches nothing in it; write the file's content with the dsh \`write\` tool.`)
    await s.ok('str_replace_editor', { command: 'view', path: 'empty.txt' })
    const replaced = await s.call('str_replace_editor', { command: 'str_replace', path: 'empty.txt', old_str: 'a', new_str: 'b' })
    expect(replaced.content[0]!.text).toContain('use the `insert` command with `insert_line` 0 and the content as `new_str`.')
    await s.ok('str_replace_editor', { command: 'insert', path: 'empty.txt', insert_line: 0, new_str: 'b' })
    expect((await s.bytes('empty.txt'))!.toString()).toBe('b\n')
  } finally {
    await s.dispose()
  }
})
