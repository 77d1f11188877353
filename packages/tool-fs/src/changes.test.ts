import { expect, it } from 'vitest'
import { countLines, lineChanges } from './changes'

it('counts lines the way read numbers them', () => {
  expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('\n\n')]).toEqual([0, 1, 1, 2, 2])
})

it('counts added and removed lines and locates the first changed region in the new text', () => {
  expect(lineChanges('a\nb\nc\nd\n', 'a\nB\nB2\nc\nD\n')).toEqual({ added: 3, removed: 2, first: { start: 2, end: 3 } })
})

it('gives an empty first region for a pure removal', () => {
  expect(lineChanges('a\nb\nc\n', 'a\nc\n')).toEqual({ added: 0, removed: 1, first: { start: 2, end: 1 } })
})

it('does not count a change of line endings as a change', () => {
  expect(lineChanges('a\r\nb\r\n', 'a\nb\n')).toEqual({ added: 0, removed: 0 })
})
