import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePatch, type PatchHunk } from './parse'
import { resolveHunks } from './resolve'

/** The hunks of a one-file Update patch whose body is `lines`. */
function hunks(...lines: string[]): PatchHunk[] {
  const [section] = parsePatch(['*** Begin Patch', '*** Update File: f', ...lines, '*** End Patch'].join('\n'))
  if (section?.kind !== 'update') throw new Error('not an update')
  return section.hunks
}

function applied(text: string, ...lines: string[]): string {
  const result = resolveHunks(text, hunks(...lines))
  if (!('text' in result)) throw new Error(`refused: ${JSON.stringify(result)}`)
  return result.text
}

describe('resolveHunks', () => {
  // Codex's apply tests, translated: same file, same patch, same result.
  it('replaces a line after its context', () => {
    expect(applied('foo\nbar\n', '@@', ' foo', '-bar', '+baz')).toBe('foo\nbaz\n')
  })

  it('applies several hunks to one file', () => {
    expect(applied('foo\nbar\nbaz\nqux\n', '@@', ' foo', '-bar', '+BAR', '@@', ' baz', '-qux', '+QUX')).toBe('foo\nBAR\nbaz\nQUX\n')
  })

  it('applies interleaved changes and an addition at the end of the file', () => {
    const text = applied('a\nb\nc\nd\ne\nf\n', '@@', ' a', '-b', '+B', '@@', ' c', ' d', '-e', '+E', '@@', ' f', '+g', '*** End of File')
    expect(text).toBe('a\nB\nc\nd\nE\nf\ng\n')
  })

  it('puts a hunk of added lines only at the end of the file, and a later hunk still matches from the top', () => {
    const text = applied('line1\nline2\nline3\n', '@@', '+after-context', '+second-line', '@@', ' line1', '-line2', '-line3', '+line2-replacement')
    expect(text).toBe('line1\nline2-replacement\nafter-context\nsecond-line\n')
  })

  it('removes lines, and replaces the last line of a file', () => {
    expect(applied('a\nb\nc\n', '@@', ' a', '-b', ' c')).toBe('a\nc\n')
    expect(applied('a\nb\n', '@@', ' a', '-b', '+z', '*** End of File')).toBe('a\nz\n')
  })

  // Where we differ from Codex on purpose: nothing is forgiven, so nothing lands in the wrong place.
  it('refuses a hunk whose lines differ in indentation or trailing spaces, naming the hunk', () => {
    expect(resolveHunks('  foo\nbar\n', hunks('@@', ' foo', '-bar', '+baz'))).toMatchObject({ kind: 'not-found', hunk: 0, needle: 'foo\nbar' })
    expect(resolveHunks('foo \nbar\n', hunks('@@', ' foo', '-bar', '+baz'))).toMatchObject({ kind: 'not-found', hunk: 0 })
  })

  it('refuses a Unicode dash where the file has an ASCII hyphen (Codex normalises it; we never guess)', () => {
    expect(resolveHunks('import asyncio  # local import - avoids top-level dep\n', hunks('@@', '-import asyncio  # local import \u2013 avoids top-level dep', '+import asyncio  # HELLO')))
      .toMatchObject({ kind: 'not-found', hunk: 0 })
  })

  it('takes an exact match over an earlier near match', () => {
    expect(applied('value = 1 \nvalue = 1\n', '@@', '-value = 1', '+value = 2')).toBe('value = 1 \nvalue = 2\n')
  })

  it('refuses a hunk that matches twice, naming both lines', () => {
    expect(resolveHunks('x\nfoo\ny\nfoo\n', hunks('@@', '-foo', '+bar'))).toEqual({ kind: 'ambiguous', hunk: 0, needle: 'foo', lines: [2, 4], truncated: false })
  })

  it('lets an @@ anchor pick the occurrence after it', () => {
    const text = 'def a():\n    return 0\ndef b():\n    return 0\n'
    expect(applied(text, '@@ def b():', '-    return 0', '+    return 1')).toBe('def a():\n    return 0\ndef b():\n    return 1\n')
  })

  it('finds an anchor written without the line\'s indentation, and refuses an anchor that is nowhere', () => {
    const text = 'class A:\n    def m(self):\n        pass\n'
    expect(applied(text, '@@ def m(self):', '-        pass', '+        return 1')).toBe('class A:\n    def m(self):\n        return 1\n')
    expect(resolveHunks(text, hunks('@@ def n(self):', '-        pass', '+        x'))).toEqual({ kind: 'anchor-not-found', hunk: 0, anchor: 'def n(self):' })
  })

  it('inserts the added lines of an anchored hunk right after its anchor', () => {
    expect(applied('class A:\n    x = 1\n', '@@ class A:', '+    y = 0')).toBe('class A:\n    y = 0\n    x = 1\n')
  })

  it('refuses a hunk that matches only above the previous hunk, saying where', () => {
    expect(resolveHunks('a\nb\nc\n', hunks('@@', '-c', '+C', '@@', '-a', '+A'))).toEqual({ kind: 'not-found', hunk: 1, needle: 'a', earlierLine: 1 })
  })

  it('refuses an End of File hunk whose lines are not at the end', () => {
    expect(resolveHunks('a\nb\nc\n', hunks('@@', '-a', '+A', '*** End of File'))).toEqual({ kind: 'not-at-end', hunk: 0, needle: 'a', lines: [1] })
  })

  it('keeps CRLF lines CRLF, gives added lines the file\'s ending, and leaves mixed endings mixed', () => {
    expect(applied('a\r\nb\r\nc\r\n', '@@', ' a', '-b', '+B', '+B2')).toBe('a\r\nB\r\nB2\r\nc\r\n')
    expect(applied('a\r\nb\nc\r\nd\r\n', '@@', ' c', '-d', '+D')).toBe('a\r\nb\nc\r\nD\r\n')
    // Kept lines inside a hunk are never rewritten: the LF of line 2 survives between two changes.
    expect(applied('a\r\nb\nc\r\nd\r\n', '@@', '-a', '+A', ' b', '-c', '+C', ' d')).toBe('A\r\nb\nC\r\nd\r\n')
  })

  it('keeps a missing final line break missing', () => {
    expect(applied('a\nb', '@@', ' a', '-b', '+c')).toBe('a\nc')
    expect(applied('a\nb', '@@', '+c')).toBe('a\nb\nc')
  })

  it('fills an empty file', () => {
    expect(applied('', '@@', '+one', '+two')).toBe('one\ntwo\n')
  })

  it('reports where each hunk landed in lines of the new text', () => {
    const result = resolveHunks('a\nb\nc\nd\n', hunks('@@', ' a', '-b', '+B1', '+B2', '@@', '-d'))
    expect(result).toMatchObject({ changes: [{ line: 2, removedLines: 1, addedLines: 2 }, { line: 5, removedLines: 1, addedLines: 0 }], added: 2, removed: 2 })
  })

  it('leaves every line outside the hunks byte-identical, whatever the file', () => {
    const line = fc.stringMatching(/^[ab \t]{0,3}$/)
    const eol = fc.constantFrom('\n', '\r\n')
    fc.assert(fc.property(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 12 }), fc.nat(), (parts, pick) => {
      const text = parts.map(([content, end]) => content + end).join('')
      const target = pick % parts.length
      const marker = `<${target}>`
      // Replace one line chosen by its position, anchored by a unique marker line inserted before it.
      const marked = parts.map(([content, end], index) => (index === target ? `${marker}${end}${content}${end}` : content + end)).join('')
      const result = resolveHunks(marked, hunks(`@@ ${marker}`, `-${marker}`))
      if (!('text' in result)) throw new Error(JSON.stringify(result))
      expect(result.text).toBe(text)
    }))
  })
})
