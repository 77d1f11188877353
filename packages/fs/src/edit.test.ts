import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { spliceLiteral } from './edit'
import { FsError } from './errors'

const edit = (oldString: string, newString: string, replaceAll = false) => ({ oldString, newString, replaceAll })
const code = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return FsError.is(error) ? error.code : 'not an FsError'
  }
  return 'no error'
}

describe('spliceLiteral', () => {
  it('names the lines of an ambiguous match', () => {
    expect(() => spliceLiteral('a\nx\nb\nx\n', edit('x', 'y'))).toThrowError(expect.objectContaining({ code: 'FS_AMBIGUOUS_EDIT', message: expect.stringMatching(/2 times .*lines 2, 4/) }))
  })

  it('fails FS_EDIT_NOT_FOUND for empty and missing old strings', () => {
    expect(code(() => spliceLiteral('abc', edit('', 'x')))).toBe('FS_EDIT_NOT_FOUND')
    expect(code(() => spliceLiteral('abc', edit('d', 'x')))).toBe('FS_EDIT_NOT_FOUND')
    expect(code(() => spliceLiteral('aa', edit('a', 'x')))).toBe('FS_AMBIGUOUS_EDIT')
  })

  it('does not count overlapping matches twice', () => {
    expect(spliceLiteral('aaaa', edit('aa', 'b', true))).toMatchObject({ text: 'bb', replacements: 2 })
  })

  it('leaves lone carriage returns alone', () => {
    expect(spliceLiteral('a\rb\r\nc', edit('b\nc', 'B\nC')).text).toBe('a\rB\r\nC')
  })

  it('changes nothing outside the replaced span, whatever the line endings', () => {
    const piece = fc.constantFrom('a', 'b', 'x', '\n', '\r\n', '\r', 'é', '$&')
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(piece, { maxLength: 4 }), (before, after) => {
        const marker = 'MARK'
        const text = before.join('') + marker + after.join('')
        const result = spliceLiteral(text, edit(marker, 'new\ntext'))
        const eol = (text.match(/\r\n/g)?.length ?? 0) > (text.match(/(?<!\r)\n/g)?.length ?? 0) ? '\r\n' : '\n'
        expect(result.text).toBe(before.join('') + `new${eol}text` + after.join(''))
      }),
    )
  })

  it('returns the text unchanged for an edit whose new string equals the old one', () => {
    const piece = fc.constantFrom('a', 'b', '\n', '\r\n', '\r')
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 30 }), fc.nat(), fc.nat(), (pieces, i, j) => {
        const text = pieces.join('')
        const normalized = text.replaceAll('\r\n', '\n')
        const start = i % text.length
        // The model quotes what it read (the raw text); matching normalises both sides.
        const span = text.slice(start, start + 1 + (j % 5))
        const count = normalized.split(span.replaceAll('\r\n', '\n')).length - 1
        fc.pre(count > 0)
        const result = spliceLiteral(text, edit(span, span, true))
        expect(result).toMatchObject({ text, replacements: count, lines: { changes: [], added: 0, removed: 0 } })
      }),
    )
  })
})

describe('spliceLiteral size bound', () => {
  it('refuses a result above maxBytes before building it', () => {
    // 500 KB of single-byte matches, each replaced by 1 KB: 500 MB if it were built.
    const text = 'a'.repeat(500_000)
    const started = process.memoryUsage().rss
    expect(code(() => spliceLiteral(text, edit('a', 'b'.repeat(1000), true), 'big.txt', { maxBytes: 256 * 1024 * 1024 }))).toBe('FS_TOO_LARGE')
    expect(process.memoryUsage().rss - started).toBeLessThan(100 * 1024 * 1024)
  })

  it('counts the result exactly: CRLFs in the replaced spans and multibyte text included', () => {
    const text = 'é\r\nx\r\né\r\nx\r\n'
    const request = edit('é\nx', 'ü\nyy', true)
    const size = Buffer.byteLength(spliceLiteral(text, request).text)
    expect(spliceLiteral(text, request, undefined, { maxBytes: size }).text).toBe('ü\r\nyy\r\nü\r\nyy\r\n')
    expect(code(() => spliceLiteral(text, request, undefined, { maxBytes: size - 1 }))).toBe('FS_TOO_LARGE')
  })
})

describe('spliceLiteral in a file of mixed line endings', () => {
  it('keeps each rewritten line\'s own ending, LF or CRLF', () => {
    // CRLF dominates; line b ends with LF, and a rewrite of a..c must not make it CRLF.
    const text = 'a\r\nb\nc\r\nd\r\n'
    expect(spliceLiteral(text, edit('a\nb\nc', 'A\nB\nC')).text).toBe('A\r\nB\nC\r\nd\r\n')
    // LF dominates; the one CRLF line stays CRLF.
    expect(spliceLiteral('a\nb\r\nc\nd\n', edit('a\nb\nc\n', 'A\nB\nC\n')).text).toBe('A\nB\r\nC\nd\n')
  })

  it('pairs lines equal at both ends and gives lines that correspond to none the dominant ending', () => {
    const text = 'head\r\nx\ny\r\ntail\n'
    // A line inserted between x and y: x and y keep theirs; the new one takes the dominant ending (a tie, 2 and 2, is LF).
    expect(spliceLiteral(text, edit('x\ny\r\n', 'x\nnew\ny\n')).text).toBe('head\r\nx\nnew\ny\r\ntail\n')
    // A line removed from the middle: the ones left keep theirs.
    expect(spliceLiteral('1\r\n2\n3\r\n4\n', edit('1\n2\n3\n', '1\n3\n')).text).toBe('1\r\n3\r\n4\n')
  })

  it('works out the endings per replacement under replace_all', () => {
    const text = 'k\r\nv\nk\nv\r\nz\r\n'
    expect(spliceLiteral(text, edit('k\nv', 'K\nV', true)).text).toBe('K\r\nV\nK\nV\r\nz\r\n')
  })

  it('reports the lines and the size of a mixed result exactly', () => {
    const text = 'a\r\nb\nc\r\n'.repeat(3)
    const request = edit('a\nb\n', 'A\nB\nB2\n', true)
    const result = spliceLiteral(text, request)
    // Aligned from both ends: a's CRLF stays with A, b's LF with the last line B2; B, in between, is new (dominant CRLF).
    expect(result.text).toBe('A\r\nB\r\nB2\nc\r\n'.repeat(3))
    expect(result.lines).toMatchObject({ added: 9, removed: 6 })
    const size = Buffer.byteLength(result.text)
    expect(spliceLiteral(text, request, undefined, { maxBytes: size }).text).toBe(result.text)
    expect(code(() => spliceLiteral(text, request, undefined, { maxBytes: size - 1 }))).toBe('FS_TOO_LARGE')
  })

  it('never changes the ending of a line whose text it kept, whatever the edit', () => {
    const line = fc.constantFrom('a', 'b', 'c')
    const ending = fc.constantFrom('\n', '\r\n')
    fc.assert(fc.property(fc.array(fc.tuple(line, ending), { minLength: 2, maxLength: 8 }), fc.nat(7), fc.nat(3), fc.constantFrom('X', 'Y'), (rows, at, span, mark) => {
      const text = rows.map(([body, end]) => body + end).join('')
      const start = Math.min(at, rows.length - 1)
      const chosen = rows.slice(start, start + span + 1)
      const oldString = chosen.map(([body]) => `${body}\n`).join('')
      // Every line of the span rewritten in place: line k of the new text is line k of the old, marked.
      const newString = chosen.map(([body]) => `${body}${mark}\n`).join('')
      let result
      try {
        result = spliceLiteral(text, { oldString, newString, replaceAll: false })
      } catch {
        return
      }
      const endingsOf = (value: string) => value.match(/\r?\n/g) ?? []
      expect(endingsOf(result.text)).toEqual(endingsOf(text))
    }))
  })
})
