import { expect, it } from 'vitest'
import { countLines, lineChanges, snippetAround } from './changes'

it('counts lines the way read numbers them', () => {
  expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('\n\n')]).toEqual([0, 1, 1, 2, 2])
})

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

it('shows the changed lines with context, cut at the longest region, and CRs dropped', async () => {
  const after = Array.from({ length: 40 }, (_, i) => `l${i + 1}`).join('\r\n')
  const lines = await snippetAround(after, { start: 10, end: 30 }, { context: 2, maxChanged: 3, maxLineLength: 100 })
  expect(lines.map((line) => `${line.number}:${line.text}`)).toEqual(['8:l8', '9:l9', '10:l10', '11:l11', '12:l12', '13:l13', '14:l14'])
  expect(await snippetAround('a\nb\n', { start: 3, end: 2 }, { context: 1, maxChanged: 3, maxLineLength: 100 })).toMatchObject([{ number: 2, text: 'b' }])
})
