import { describe, expect, it } from 'vitest'
import { insertLines, occurrenceLines } from './lines'

describe('insertLines', () => {
  // [what the case shows, text, insert_line, block, the text after]
  const cases: Array<[string, string, number, string, string]> = [
    ['inserts at the top', 'a\nb\n', 0, 'x', 'x\na\nb\n'],
    ['inserts between lines', 'a\nb\n', 1, 'x', 'a\nx\nb\n'],
    ['inserts after the last line', 'a\nb\n', 2, 'x', 'a\nb\nx\n'],
    ['keeps a file without a final line break without one, at its end', 'a\nb', 2, 'x', 'a\nb\nx'],
    ['keeps a file without a final line break without one, inside it', 'a\nb', 1, 'x', 'a\nx\nb'],
    ['gives the inserted lines the dominant line ending and leaves other bytes alone', 'a\r\nb\r\nc\n', 1, 'x\ny', 'a\r\nx\r\ny\r\nb\r\nc\n'],
    ['turns a CRLF block into the file\'s LF', 'a\nb\n', 1, 'x\r\ny', 'a\nx\ny\nb\n'],
    ['drops one trailing line break of the block, since it becomes whole lines anyway', 'a\n', 1, 'x\n', 'a\nx\n'],
    ['keeps a second trailing line break of the block as an empty line', 'a\n', 1, 'x\n\n', 'a\nx\n\n'],
  ]

  it.each(cases)('%s', (_what, text, line, block, after) => {
    expect(insertLines(text, line, block).text).toBe(after)
  })

  it('reports where the inserted lines are', () => {
    expect(insertLines('a\nb\n', 1, 'x\ny\n')).toMatchObject({ firstLine: 2, lineCount: 2 })
    expect(insertLines('', 0, 'x')).toEqual({ text: 'x\n', firstLine: 1, lineCount: 1 })
  })
})

describe('occurrenceLines', () => {
  it('finds the starting line of every non-overlapping match, across CRLF', () => {
    expect(occurrenceLines('x\r\nfoo\r\nbar\r\nfoo\r\n', 'foo\nbar')).toEqual([2])
    expect(occurrenceLines('foo\nx\nfoo\nfoofoo', 'foo')).toEqual([1, 3, 4, 4])
    expect(occurrenceLines('aaa', 'aa')).toEqual([1])
  })
})
