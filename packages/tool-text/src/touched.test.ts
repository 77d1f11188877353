import { expect, it } from 'vitest'
import { touchedLines } from './touched'

const text = `${Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\r\n')}\r\n`

it('finds the quoted text across CRLF and shows it with the snippet rule', () => {
  expect(touchedLines(text, { needle: 'line 20\nline 21' })).toEqual({ where: 'match', span: { start: 16, end: 25 } })
})

it('falls back to the nearest region, then to nothing', () => {
  expect(touchedLines(text, { needle: '  line 30' })).toEqual({ where: 'nearest', span: { start: 26, end: 34 } })
  expect(touchedLines(text, { needle: 'nowhere' })).toEqual({ where: 'start' })
})

it('shows the lines around an insertion point, the top included', () => {
  expect(touchedLines(text, { line: 10 })).toEqual({ where: 'line', span: { start: 6, end: 15 } })
  expect(touchedLines(text, { line: 0 })).toEqual({ where: 'line', span: { start: 1, end: 5 } })
})
