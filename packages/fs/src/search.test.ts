import { beforeAll, describe, expect, it } from 'vitest'
import { loadLinearEngine } from './linear'
import type { FsSearchMode, FsSearchOptions } from './discovery-types'
import { SearchCollector } from './search'

beforeAll(loadLinearEngine)

const utf8 = (text: string) => Buffer.from(text, 'utf8')

/** Files that exercise the byte test: CRLF, BOM, multibyte text around the literal, binary and invalid UTF-8. */
const FILES: Array<[string, Uint8Array]> = [
  ['crlf.txt', utf8('first\r\nthe needle here\r\nlast\r\n')],
  ['bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('needle at the start\nno\n')])],
  ['multibyte.txt', utf8('日本語 needle été\nΣ NEEDLE σ\nnothing\n')],
  ['upper.txt', utf8('only NeEdLe in mixed case\n')],
  ['none.txt', utf8('needl e and eedle and nee-dle\n')],
  ['accents.txt', utf8('néedle is not needle without the accent… wait: it is\n')],
  ['binary-hit.bin', Buffer.concat([utf8('needle'), Buffer.from([0, 1, 2])])],
  ['binary-miss.bin', Buffer.from([0, 1, 2, 3])],
  ['invalid-hit.txt', Buffer.concat([utf8('needle '), Buffer.from([0xff, 0xfe])])],
  ['empty.txt', new Uint8Array(0)],
]

function run(pattern: string, mode: FsSearchMode, extra: Partial<FsSearchOptions> = {}) {
  const collector = new SearchCollector({ pattern, mode, limit: 100, ...extra })
  for (const [path, bytes] of FILES) collector.addBytes(path, bytes)
  return { literal: collector.literal, result: collector.result(true) }
}

describe('SearchCollector', () => {
  it('gives the same results with the literal byte test as with a pattern that has no literal, in every mode', () => {
    for (const mode of ['files', 'lines', 'count'] as const) {
      for (const caseInsensitive of [false, true]) {
        const fast = run('needle', mode, { caseInsensitive, context: 1 })
        const slow = run('(?:needle)', mode, { caseInsensitive, context: 1 })
        expect(fast.literal).toBe('needle')
        expect(slow.literal).toBeUndefined()
        expect(fast.result.files).toEqual(slow.result.files)
      }
    }
    // Plain alternatives are tested as substrings, with the same results as the engine's.
    for (const mode of ['files', 'lines', 'count'] as const) {
      expect(run('needle|NEEDLE|é', mode, { context: 1 }).result.files).toEqual(run('(?:needle|NEEDLE|é)', mode, { context: 1 }).result.files)
    }
    // Binary files without any of them cannot match, so they are passed over uncounted.
    expect(run('needle|NEEDLE|é', 'files').result.skipped.binary).toBe(2)
    expect(run('NeEdLe|nothing', 'files').result.files.map((file) => file.path)).toEqual(['multibyte.txt', 'upper.txt'])
    const sensitive = run('needle', 'lines').result.files
    expect(sensitive.map((file) => file.path)).toEqual(['crlf.txt', 'bom.txt', 'multibyte.txt', 'accents.txt'])
    // Line numbers and texts are those of the decoded file: no CR, no BOM, whole characters.
    expect(sensitive[0]!.lines).toEqual([{ line: 2, text: 'the needle here', match: true }])
    expect(sensitive[1]!.lines).toEqual([{ line: 1, text: 'needle at the start', match: true }])
    expect(sensitive[2]!.lines).toEqual([{ line: 1, text: '日本語 needle été', match: true }])
    const insensitive = run('needle', 'count', { caseInsensitive: true }).result.files
    expect(insensitive).toContainEqual({ path: 'multibyte.txt', count: 2 })
    expect(insensitive).toContainEqual({ path: 'upper.txt', count: 1 })
  })

  it('counts as binary only the binary or invalid files that hold the literal, ignoring case or not', () => {
    for (const caseInsensitive of [false, true]) {
      expect(run('needle', 'files', { caseInsensitive }).result.skipped).toEqual({ binary: 2, tooLarge: 0, unreadable: 0 })
      expect(run('NEEDLE', 'files', { caseInsensitive }).result.skipped.binary).toBe(caseInsensitive ? 2 : 0)
    }
    // Without a literal there is nothing to test the bytes for: every binary file is counted.
    expect(run('(?:needle)', 'files').result.skipped.binary).toBe(3)
  })

  it('tests the bytes for a literal with regular-expression syntax around it, and folds only ASCII', () => {
    const collector = new SearchCollector({ pattern: 'a\\.b\\(\\s*x', mode: 'files', limit: 10, caseInsensitive: true })
    expect(collector.literal).toBe('a.b(')
    expect(collector.mayMatch(utf8('x A.B( y'))).toBe(true)
    expect(collector.mayMatch(utf8('x aXb( y'))).toBe(false)
    // The literal's `.` and `(` are plain characters in the byte test, not syntax.
    expect(collector.mayMatch(utf8('a.b'))).toBe(false)
    expect(new SearchCollector({ pattern: 'straße', mode: 'files', limit: 1, caseInsensitive: true }).literal).toBeUndefined()
  })
})
