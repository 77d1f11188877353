import { writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { editorFixture, type EditorFixture, textOf } from './fixture'

let f: EditorFixture
afterEach(() => f.dispose())

describe('undo_edit', () => {
  it('restores the exact bytes from before the last edit, BOM and CRLF included', async () => {
    f = await editorFixture()
    const original = Buffer.from('\uFEFFone\r\ntwo\r\n')
    await f.put('a.txt', original)
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'two', new_str: 'TWO' })
    const text = await f.ok({ command: 'undo_edit', path: 'a.txt' })
    expect(text).toBe(`Last edit to ${f.at('a.txt')} undone successfully. Here's the result of running \`cat -n\` on ${f.at('a.txt')}:\n`
      + '     1\tone\n     2\ttwo\n')
    expect(await f.bytes('a.txt')).toEqual(original)
  })

  it('walks back through several edits, str_replace and insert alike', async () => {
    f = await editorFixture()
    await f.put('a.txt', 'a\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 'b' })
    await f.ok({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'c' })
    await f.ok({ command: 'undo_edit', path: 'a.txt' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('b\n')
    await f.ok({ command: 'undo_edit', path: 'a.txt' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('a\n')
    const result = await f.call({ command: 'undo_edit', path: 'a.txt' })
    expect(result.error).toEqual({ code: 'NO_EDIT_HISTORY', message: `No edit history found for ${f.at('a.txt')}.` })
  })

  it('never clobbers a later external change: FS_STALE_VERSION and the file untouched', async () => {
    f = await editorFixture()
    await f.put('a.txt', 'mine\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'mine', new_str: 'edited' })
    await writeFile(f.at('a.txt'), 'edited\nand a human added this\n')
    const result = await f.call({ command: 'undo_edit', path: 'a.txt' })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
    expect(textOf(result)).toBe(`Cannot undo the last edit to ${f.at('a.txt')}: the file has changed since that edit, `
      + 'and undo never overwrites a later change. View the file, then revert by hand with `str_replace` if still needed.')
    expect((await f.bytes('a.txt'))?.toString()).toBe('edited\nand a human added this\n')
  })

  it('keeps the undo of one session away from another', async () => {
    f = await editorFixture()
    const other = { cwd: f.dir }
    await f.put('a.txt', 'a\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 'b' })
    expect((await f.call({ command: 'undo_edit', path: 'a.txt' }, other)).error?.code).toBe('NO_EDIT_HISTORY')
    expect((await f.call({ command: 'undo_edit', path: 'a.txt' }, null)).error?.code).toBe('NO_EDIT_HISTORY')
    await f.ok({ command: 'undo_edit', path: 'a.txt' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('a\n')
  })

  it('shares one history between calls that carry no session', async () => {
    f = await editorFixture({ policy: false })
    await f.put('a.txt', 'a\n')
    await f.ok({ command: 'str_replace', path: f.at('a.txt'), old_str: 'a', new_str: 'b' }, null)
    await f.ok({ command: 'undo_edit', path: f.at('a.txt') }, null)
    expect((await f.bytes('a.txt'))?.toString()).toBe('a\n')
  })

  it('has nothing to undo after a create: create is not an edit it can take back', async () => {
    f = await editorFixture()
    await f.ok({ command: 'create', path: 'new.txt', file_text: 'x' })
    expect((await f.call({ command: 'undo_edit', path: 'new.txt' })).error?.code).toBe('NO_EDIT_HISTORY')
    expect((await f.bytes('new.txt'))?.toString()).toBe('x')
  })

  it('forgets edits beyond the configured depth', async () => {
    f = await editorFixture({ config: { undoDepth: 1 } })
    await f.put('a.txt', '0\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: '0', new_str: '1' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: '1', new_str: '2' })
    await f.ok({ command: 'undo_edit', path: 'a.txt' })
    expect((await f.call({ command: 'undo_edit', path: 'a.txt' })).error?.code).toBe('NO_EDIT_HISTORY')
    expect((await f.bytes('a.txt'))?.toString()).toBe('1\n')
  })

  it('lets the policy guard the next edit with the version the undo produced', async () => {
    f = await editorFixture()
    await f.put('a.txt', 'a\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 'b' })
    await f.ok({ command: 'undo_edit', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 'c' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('c\n')
  })
})
