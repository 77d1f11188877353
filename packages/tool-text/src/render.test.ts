import { describe, expect, it } from 'vitest'
import { spanWords } from './render'
import { renderMatchFailure } from './render-refusal'
import { renderReport } from './render-report'
import type { MatchFailure, StepReport } from './report'

const limits = { maxLineLength: 10 }

describe('renderMatchFailure', () => {
  it('names a line holding several occurrences once, in both families, from the same data', () => {
    const failure: MatchFailure = { kind: 'ambiguous', path: '/p', needle: 'x', occurrences: { count: 3, lines: [4], truncated: false } }
    const fs = renderMatchFailure(failure, 'fs', limits)
    const editor = renderMatchFailure(failure, 'editor', limits)
    expect(fs).toBe('old_string occurs 3 times in /p (all on line 4); include more surrounding lines in old_string so it matches once, or set replace_all to true')
    expect(editor).toBe('No replacement was performed. Multiple occurrences of old_str `x`: 3 occurrences on line 4. Please ensure it is unique')
    const spread: MatchFailure = { ...failure, occurrences: { count: 3, lines: [4, 9], truncated: false } }
    expect(renderMatchFailure(spread, 'fs', limits)).toContain('(lines 4, 9)')
    expect(renderMatchFailure(spread, 'editor', limits)).toContain('in lines [4, 9].')
  })

  it('shows the closest text cut at the line limit, with the cut named, in both families', () => {
    const region = { start: 2, end: 2, lines: ['  a very long line'], differences: ['indentation (line 2: 2 spaces in the file, none in old_string)'] }
    const failure: MatchFailure = { kind: 'no-match', path: '/p', needle: 'a very long line', region }
    const fs = renderMatchFailure(failure, 'fs', limits)
    const editor = renderMatchFailure(failure, 'editor', limits)
    expect(fs).toContain('     2\t  a very l\n[Line 2 is cut: a line is shown up to 10 characters. To see more of line 2, call the dsh `read` tool with offset=2, limit=1, column=11.]')
    expect(editor).toContain('     2\t  a very l\n[Line 2 is cut: a line is shown up to 10 characters. To see all of line 2, view again with view_range [2, 2].]')
    expect(editor).toContain('It differs from old_str in: indentation (line 2: 2 spaces in the file, none in old_str).')
  })
})

describe('renderReport of a multi-edit', () => {
  it('names each edit with its own lines, runs of lines as one span, and snippets only for the first ten edits', () => {
    const steps: StepReport[] = Array.from({ length: 11 }, (_, index) => ({
      index,
      replacements: 2,
      spans: [{ start: index * 10 + 1, end: index * 10 + 1 }, { start: index * 10 + 2, end: index * 10 + 2 }],
      snippet: index < 10 ? [{ number: index * 10 + 1, text: `e${index}`, cut: false }] : [],
    }))
    const text = renderReport({ kind: 'multi-edited', path: '/p', edits: 11, replacements: 22, steps }, 'fs', limits)
    const lines = text.split('\n')
    expect(lines[0]).toBe('Edited /p: 11 edits, 22 replacements.')
    expect(lines[1]).toBe('edits[0] (2 replacements) changed lines 1-2:')
    expect(lines.at(-1)).toBe('edits[10] (2 replacements) changed lines 101-102.')
  })

  it('words a removal and a step that changed only line endings', () => {
    expect(spanWords({ start: 5, end: 4 })).toBe('a removal before line 5')
    const text = renderReport({ kind: 'multi-edited', path: '/p', edits: 1, replacements: 1, steps: [{ index: 0, replacements: 1, spans: [], snippet: [] }] }, 'fs', limits)
    expect(text).toBe('Edited /p: 1 edit, 1 replacement.\nedits[0] (1 replacement) changed no line, only line endings.')
  })
})
