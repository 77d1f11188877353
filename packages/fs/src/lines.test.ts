import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { spliceLiteral } from './edit'
import { FsError } from './errors'
import { changedRegion, FS_MAX_OCCURRENCE_LINES, occurrencesAt } from './lines'
import type { FsLineChange } from './types'

const edit = (oldString: string, newString: string, replaceAll = false) => ({ oldString, newString, replaceAll })

/** Lines with their terminators, a CRLF terminator written as LF: what the regions are about. */
const linesOf = (text: string): string[] => text.replaceAll('\r\n', '\n').match(/[^\n]*\n|[^\n]+$/g) ?? []

/** The naive line of an offset: count the line feeds before it. */
const naiveLine = (text: string, offset: number) => text.slice(0, offset).split('\n').length

/**
 * Checks `changes` the slow way: applied to the old lines as a patch they give the new lines, in
 * order, and every region is trimmed (its first and last lines differ from what they replace).
 */
function expectPatch(before: string, after: string, changes: FsLineChange[]): void {
  const oldLines = linesOf(before)
  const newLines = linesOf(after)
  const rebuilt: string[] = []
  let used = 0
  for (const change of changes) {
    const copy = change.line - 1 - rebuilt.length
    expect(copy).toBeGreaterThanOrEqual(0)
    rebuilt.push(...oldLines.slice(used, used + copy))
    used += copy
    const added = newLines.slice(change.line - 1, change.line - 1 + change.addedLines)
    const removed = oldLines.slice(used, used + change.removedLines)
    expect(added.length + removed.length).toBeGreaterThan(0)
    if (added.length > 0 && removed.length > 0) {
      expect(added[0]).not.toBe(removed[0])
      expect(added.at(-1)).not.toBe(removed.at(-1))
    }
    rebuilt.push(...added)
    used += change.removedLines
  }
  rebuilt.push(...oldLines.slice(used))
  expect(rebuilt).toEqual(newLines)
}

const piece = fc.constantFrom('a', 'b', 'x', '\n', '\r\n', '\r', 'é')

describe('spliceLiteral line data', () => {
  it('describes every replace_all exactly, as a patch of trimmed regions', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(piece, { minLength: 1, maxLength: 4 }), fc.array(piece, { maxLength: 5 }), (body, old, replacement) => {
        const text = body.join('')
        let result
        try {
          result = spliceLiteral(text, edit(old.join(''), replacement.join(''), true))
        } catch (error) {
          if (FsError.is(error, 'FS_EDIT_NOT_FOUND')) return
          throw error
        }
        expectPatch(text, result.text, result.lines.changes)
        expect(result.lines.added).toBe(result.lines.changes.reduce((sum, change) => sum + change.addedLines, 0))
        expect(result.lines.removed).toBe(result.lines.changes.reduce((sum, change) => sum + change.removedLines, 0))
        expect(linesOf(result.text).length - linesOf(text).length).toBe(result.lines.added - result.lines.removed)
      }),
      { numRuns: 3000 },
    )
  })

  it('names the line of a unique replacement in the new text, at any distance from the start', () => {
    const text = `${'filler\n'.repeat(30_001)}target\n${'tail\n'.repeat(3)}`
    const result = spliceLiteral(text, edit('target', 'one\ntwo'))
    expect(result.lines).toEqual({ changes: [{ line: 30_002, removedLines: 1, addedLines: 2 }], added: 2, removed: 1 })
  })

  it('makes one region of replacements that share a line', () => {
    expect(spliceLiteral('a-a-a\nb\n', edit('a', 'bb', true)).lines).toEqual({ changes: [{ line: 1, removedLines: 1, addedLines: 1 }], added: 1, removed: 1 })
  })

  it('counts a joined line: replacing a line feed changes the next line too', () => {
    expect(spliceLiteral('a\nb\nc\n', edit('a\n', 'x')).lines.changes).toEqual([{ line: 1, removedLines: 2, addedLines: 1 }])
  })

  it('does not count lines whose terminator alone became the file\'s line ending', () => {
    expect(spliceLiteral('one\r\ntwo\r\n', edit('two', 'two\nthree')).lines.changes).toEqual([{ line: 3, removedLines: 0, addedLines: 1 }])
  })

  it('reports no region for an edit that changes nothing', () => {
    expect(spliceLiteral('a\r\nb\n', edit('a\nb', 'a\r\nb')).lines).toEqual({ changes: [], added: 0, removed: 0 })
  })
})

describe('occurrencesAt', () => {
  it('gives the distinct lines of the matches, like counting line feeds before each', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.constantFrom('a', 'x', 'ab', 'a\nb'), (body, needle) => {
        const text = body.join('').replaceAll('\r\n', '\n')
        const offsets: number[] = []
        for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) offsets.push(at)
        const naive = [...new Set(offsets.map((offset) => naiveLine(text, offset)))]
        expect(occurrencesAt(text, offsets)).toEqual({ count: offsets.length, lines: naive, truncated: false })
      }),
      { numRuns: 2000 },
    )
  })

  it('lists a bounded number of lines and says when it stopped', () => {
    const text = 'x\n'.repeat(FS_MAX_OCCURRENCE_LINES + 5)
    const offsets = Array.from({ length: FS_MAX_OCCURRENCE_LINES + 5 }, (_, i) => i * 2)
    const found = occurrencesAt(text, offsets)
    expect(found).toMatchObject({ count: FS_MAX_OCCURRENCE_LINES + 5, truncated: true })
    expect(found.lines).toEqual(Array.from({ length: FS_MAX_OCCURRENCE_LINES }, (_, i) => i + 1))
  })

  it('is typed on FS_AMBIGUOUS_EDIT', () => {
    try {
      spliceLiteral('x\nx x\ny\nx\n', edit('x', 'z'))
      expect.fail('expected FS_AMBIGUOUS_EDIT')
    } catch (error) {
      expect(FsError.is(error, 'FS_AMBIGUOUS_EDIT') && error.occurrences).toEqual({ count: 4, lines: [1, 2, 4], truncated: false })
    }
  })
})

describe('changedRegion', () => {
  it('is the span between the lines two texts share at both ends', () => {
    expect(changedRegion('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual({ line: 2, removedLines: 2, addedLines: 3 })
    expect(changedRegion('a\nb\nc\n', 'a\nc\n')).toEqual({ line: 2, removedLines: 1, addedLines: 0 })
    expect(changedRegion('a\r\nb\r\n', 'a\nb\n')).toBeUndefined()
  })

  it('describes any rewrite exactly, as a patch', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(piece, { maxLength: 30 }), (a, b) => {
        const before = a.join('')
        const after = b.join('')
        const region = changedRegion(before, after)
        expectPatch(before, after, region === undefined ? [] : [region])
      }),
      { numRuns: 3000 },
    )
  })

  it('counts a rewrite of every line of a 12,000-line file in one linear pass', () => {
    const before = Array.from({ length: 12_000 }, (_, i) => `a${i}`).join('\n')
    const after = Array.from({ length: 12_000 }, (_, i) => `b${i}`).join('\n')
    expect(changedRegion(before, after)).toEqual({ line: 1, removedLines: 12_000, addedLines: 12_000 })
  })
})
