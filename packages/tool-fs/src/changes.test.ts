import { expect, it } from 'vitest'
import { lineChanges } from './changes'

it('counts the region between the lines both texts share, located in the new text', () => {
  expect(lineChanges('a\nb\nc\nd\n', 'a\nB\nB2\nc\nD\n')).toEqual({ added: 4, removed: 3, first: { start: 2, end: 5 } })
  expect(lineChanges('a\nb\nc\n', 'a\nB\nc\n')).toEqual({ added: 1, removed: 1, first: { start: 2, end: 2 } })
})

it('gives an empty first region for a pure removal', () => {
  expect(lineChanges('a\nb\nc\n', 'a\nc\n')).toEqual({ added: 0, removed: 1, first: { start: 2, end: 1 } })
})

it('does not count a change of line endings as a change', () => {
  expect(lineChanges('a\r\nb\r\n', 'a\nb\n')).toEqual({ added: 0, removed: 0 })
})
