import { describe, expect, it } from 'vitest'
import { insertLines, occurrenceLines } from './lines'

describe('insertLines', () => {
  it('inserts at the top, between lines and after the last line', () => {
    expect(insertLines('a\nb\n', 0, 'x').text).toBe('x\na\nb\n')
    expect(insertLines('a\nb\n', 1, 'x').text).toBe('a\nx\nb\n')
    expect(insertLines('a\nb\n', 2, 'x').text).toBe('a\nb\nx\n')
  })

  it('keeps a file without a final line break without one', () => {
    expect(insertLines('a\nb', 2, 'x').text).toBe('a\nb\nx')
    expect(insertLines('a\nb', 1, 'x').text).toBe('a\nx\nb')
  })

  it('gives the inserted lines the dominant line ending and leaves other bytes alone', () => {
    expect(insertLines('a\r\nb\r\nc\n', 1, 'x\ny').text).toBe('a\r\nx\r\ny\r\nb\r\nc\n')
    expect(insertLines('a\nb\n', 1, 'x\r\ny').text).toBe('a\nx\ny\nb\n')
  })

  it('drops one trailing line break of the block, since it becomes whole lines anyway', () => {
    expect(insertLines('a\n', 1, 'x\n').text).toBe('a\nx\n')
    expect(insertLines('a\n', 1, 'x\n\n').text).toBe('a\nx\n\n')
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
