import { describe, expect, it } from 'vitest'
import { nearestRegion } from './nearest'

/** What the comparison says differs between a file and a failed old_string. */
const differences = (file: string, needle: string) => nearestRegion(file, needle)?.differences

describe('the one normalized comparison names each kind of difference', () => {
  it('names Unicode composition (NFD in old_string, NFC in the file)', () => {
    expect(differences('café = 1\n', 'cafe\u0301 = 1')).toEqual([
      'Unicode composition (an accented letter as one code point in one and as letter plus combining mark in the other: NFC vs NFD) (line 1)',
    ])
  })

  it('names a no-break space', () => {
    expect(differences('a b = 1\n', 'a\u00a0b = 1')).toEqual(['no-break or other Unicode spaces where the other has a plain space (line 1)'])
  })

  it('names a typed byte order mark', () => {
    expect(differences('x = 1\n', '\ufeffx = 1')).toEqual([
      'invisible characters (a byte order mark or zero-width space, U+FEFF or U+200B-U+200D) (line 1)',
    ])
  })

  it('names two kinds at once when both are needed, and only those', () => {
    expect(differences('say("café")\n', "say('cafe\u0301')")).toEqual([
      'Unicode composition (an accented letter as one code point in one and as letter plus combining mark in the other: NFC vs NFD) (line 1)',
      'quote characters (line 1)',
    ])
  })

  it('names a line copied from a cut display as cut short, with its full length', () => {
    const long = `x = "${'a'.repeat(30)}"`
    expect(differences(`${long}\ny = 2\n`, `${long.slice(0, 10)}\ny = 2`)).toEqual([
      'line 1 is cut short in old_string: it has the first 10 of the line\'s 36 characters (a line shown cut shows only its start; copy it whole)',
    ])
  })

  it('names a line left out between two grep context groups, and the separator', () => {
    const region = nearestRegion('a = 1\nb = 2\nc = 3\n', 'a = 1\n--\nc = 3')
    expect(region?.lines).toEqual(['a = 1', 'b = 2', 'c = 3'])
    expect(region?.differences).toEqual([
      'old_string leaves out line 2 of the file, between its lines 1 and 3 (grep\'s "--" separates groups of lines that are not adjacent in the file; it is not text of the file)',
    ])
  })

  it('keeps naming indentation in its own words', () => {
    expect(differences('def f():\n    return 1\n', 'def f():\n  return 1')).toEqual(['indentation (line 2: 4 spaces in the file, 2 spaces in old_string)'])
  })
})
