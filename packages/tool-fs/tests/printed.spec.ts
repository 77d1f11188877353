import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

// Nothing the tools printed is written back: read's numbers and notes in new text are refused,
// named, and the file keeps its bytes.
let s: Stack
afterEach(async () => {
  await s.dispose()
})

describe('text read printed, sent back', () => {
  it('refuses an edit whose new_string carries the line numbers, naming them, and changes nothing', async () => {
    s = await stack({ policy: true })
    await s.put('a.py', 'x = 1\ny = 2\n')
    const shown = await s.ok('read', { file_path: 'a.py' })
    const result = await s.call('edit', { file_path: 'a.py', old_string: 'x = 1', new_string: shown.split('\n')[0]!.replace('x = 1', 'x = 10') })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.content[0]!.text).toBe('Nothing was written: every line of new_string starts with a line number and a tab as the dsh `read` tool prints them '
      + '("     1\\t"); they are not part of the file. Retry with new_string without them: remove from each line everything up to and including its first tab.')
    expect((await s.bytes('a.py'))!.toString()).toBe('x = 1\ny = 2\n')
  })

  it('refuses a write of a whole read result, at its first printed line', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'one\ntwo\n')
    const shown = await s.ok('read', { file_path: 'a.txt' })
    const result = await s.call('write', { file_path: 'a.txt', content: shown })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.content[0]!.text).toBe('Nothing was written: line 4 of content is a note the dsh `read` tool printed, not text of the file: "[End of file: 2 lines.]". '
      + 'Retry with content without that line.')
    expect((await s.bytes('a.txt'))!.toString()).toBe('one\ntwo\n')
  })

  it('names the step of a multi_edit whose new_string carries a cut note', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'one\ntwo\n')
    await s.ok('read', { file_path: 'a.txt' })
    const note = '[Line 7 is cut: a line is shown up to 2000 characters. To see more of line 7, call the dsh `read` tool with offset=7, limit=1, column=2001.]'
    const result = await s.call('multi_edit', { file_path: 'a.txt', edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'two', new_string: `2\n${note}` }] })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.content[0]!.text).toContain('line 2 of edits[1].new_string is a note the dsh `read` tool printed')
    expect((await s.bytes('a.txt'))!.toString()).toBe('one\ntwo\n')
  })

  it('still writes text that only looks like a table of numbers', async () => {
    s = await stack({ policy: true })
    await s.ok('write', { file_path: 'table.tsv', content: '1\tAlice\n2\tBob\n' })
    expect((await s.bytes('table.tsv'))!.toString()).toBe('1\tAlice\n2\tBob\n')
  })
})
