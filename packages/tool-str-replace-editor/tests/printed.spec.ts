import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type EditorFixture, editorFixture, textOf } from './fixture'

// Nothing `view` printed is written back: its numbers and notes in new_str or file_text are refused.
let f: EditorFixture
beforeEach(async () => {
  f = await editorFixture()
})
afterEach(() => f.dispose())

describe('text view printed, sent back', () => {
  it('refuses str_replace when old_str and new_str both carry the line numbers, and names both', async () => {
    await f.put('a.py', 'x = 1\n')
    await f.ok({ command: 'view', path: 'a.py' })
    const result = await f.call({ command: 'str_replace', path: 'a.py', old_str: '     1\tx = 1', new_str: '     1\tx = 10' })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(textOf(result)).toBe('No replacement was performed: every line of `old_str` and `new_str` starts with a line number and a tab as the `view` command prints them '
      + '("     1\\t"); they are not part of the file. Retry with `old_str` and `new_str` without them: remove from each line everything up to and including its first tab.')
    expect((await f.bytes('a.py'))!.toString()).toBe('x = 1\n')
  })

  it('refuses insert and create of text that holds the view header', async () => {
    await f.put('a.txt', 'one\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    const header = `Here's the result of running \`cat -n\` on ${f.at('a.txt')}:`
    const inserted = await f.call({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: `${header}\ntwo` })
    expect(textOf(inserted)).toMatch(/^No insertion was performed: line 1 of `new_str` is a note the `view` command printed/)
    const created = await f.call({ command: 'create', path: 'b.txt', file_text: '     1\tone\n     2\ttwo\n' })
    expect(textOf(created)).toMatch(/^Nothing was changed: every line of `file_text` starts with a line number and a tab/)
    expect((await f.bytes('a.txt'))!.toString()).toBe('one\n')
    expect(await f.bytes('b.txt')).toBeUndefined()
  })
})
