import { expect, it } from 'vitest'
import { countLines } from './lines'
import { SNIPPET_CONTEXT, snippetLines, snippetSpan } from './snippet'

it('counts lines the way read numbers them', () => {
  expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('\n\n')]).toEqual([0, 1, 1, 2, 2])
})

it('has one rule for both families: four lines either side, at most twelve changed lines', () => {
  expect(SNIPPET_CONTEXT).toBe(4)
  expect(snippetSpan({ start: 10, end: 11 })).toEqual({ start: 6, end: 15 })
  expect(snippetSpan({ start: 2, end: 2 })).toEqual({ start: 1, end: 6 })
  expect(snippetSpan({ start: 10, end: 40 })).toEqual({ start: 6, end: 25 })
  // Lines only removed, just before line 5: the lines either side of the gap.
  expect(snippetSpan({ start: 5, end: 4 })).toEqual({ start: 1, end: 8 })
})

it('shows the changed lines with context, cut at the longest region, and CRs dropped', async () => {
  const after = Array.from({ length: 40 }, (_, i) => `l${i + 1}`).join('\r\n')
  const lines = await snippetLines(after, { start: 10, end: 30 }, { context: 2, maxChanged: 3, maxLineLength: 100 })
  expect(lines.map((line) => `${line.number}:${line.text}`)).toEqual(['8:l8', '9:l9', '10:l10', '11:l11', '12:l12', '13:l13', '14:l14'])
  expect(await snippetLines('a\nb\n', { start: 3, end: 2 }, { context: 1, maxChanged: 3, maxLineLength: 100 })).toMatchObject([{ number: 2, text: 'b' }])
  expect(await snippetLines('a\nb\n', undefined, { maxLineLength: 100 })).toEqual([])
})

it('stops at the end of the text and cuts long lines', async () => {
  const lines = await snippetLines(`a\n${'x'.repeat(10)}\nc\n`, { start: 2, end: 2 }, { maxLineLength: 4 })
  expect(lines).toEqual([{ number: 1, text: 'a', cut: false }, { number: 2, text: 'xxxx', cut: true, length: 10 }, { number: 3, text: 'c', cut: false }])
})
