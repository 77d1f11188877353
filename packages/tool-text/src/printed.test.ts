import { describe, expect, it } from 'vitest'
import { readNotes, viewNotes } from './notes'
import { printedIn, printedRefusal } from './printed'
import { cutNote, numbered } from './render'

describe('printedIn', () => {
  it('finds the numbers read and view print on every line, quoting the first prefixes', () => {
    const shown = numbered([{ number: 9, text: 'a', cut: false }, { number: 10, text: '', cut: false }, { number: 11, text: '\tb', cut: false }])
    expect(printedIn(`${shown}\n`)).toEqual({ kind: 'line-numbers', prefixes: ['     9\t', '    10\t', '    11\t'], lines: 3 })
    expect(printedIn('999999\tx\n1000000\ty')).toMatchObject({ kind: 'line-numbers', lines: 2 })
  })

  it('leaves text alone whose numbers are not exactly the printed ones', () => {
    // A tab-separated table, numbers not rising by one, a line without a number, the prefix with its padding gone.
    expect(printedIn('1\tAlice\n2\tBob\n')).toBeUndefined()
    expect(printedIn('     1\ta\n     3\tb\n')).toBeUndefined()
    expect(printedIn('     1\ta\nplain\n')).toBeUndefined()
    expect(printedIn('x = 1\n')).toBeUndefined()
    expect(printedIn('')).toBeUndefined()
  })

  it('finds every note the renderers print, from the renderers themselves', () => {
    const notes = [
      readNotes.endOfFile(1), readNotes.endOfFile(12), readNotes.continues(1, 2000, 3000, 2001), readNotes.continues(5, 9, undefined, 10),
      readNotes.budget(1, 800, 900, '50 KiB', 801), readNotes.shownFrom(3, 2001), viewNotes.header('/w/a.txt'), viewNotes.outputCut('2000 lines', 2001, -1),
      cutNote([{ number: 7, text: 'x'.repeat(2000), cut: true }], 2000, 'fs')!,
      cutNote([7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18].map((number) => ({ number, text: 'x', cut: true })), 2000, 'editor')!,
    ]
    for (const note of notes) {
      expect(printedIn(`real line\n${note}\n`), note).toEqual({ kind: 'note', line: 2, text: note })
    }
  })

  it('does not take a note quoted inside a line for the note', () => {
    expect(printedIn(`// the reader ends with ${readNotes.endOfFile(3)}\n`)).toBeUndefined()
  })
})

describe('printedRefusal', () => {
  it('names the prefixes and the retry in the fs family, and old_string too when it has them', () => {
    const text = printedRefusal('    12\tx = 2\n', { family: 'fs', argument: 'new_string' }, { argument: 'old_string', text: '    12\tx = 1' })
    expect(text).toBe('Nothing was written: every line of old_string and new_string starts with a line number and a tab as the dsh `read` tool prints them '
      + '("    12\\t"); they are not part of the file. Retry with old_string and new_string without them: remove from each line everything up to and including its first tab.')
  })

  it('names a note line in the editor\'s words', () => {
    expect(printedRefusal('a\n[End of file: 2 lines.]\n', { family: 'editor', argument: '`new_str`', command: 'insert' })).toBe(
      'No insertion was performed: line 2 of `new_str` is a note the `view` command printed, not text of the file: "[End of file: 2 lines.]". Retry with `new_str` without that line.')
  })
})

describe('printedIn on large text', () => {
  it('looks at a long line only as far as a prefix reaches, and still sees numbers on every line', () => {
    const long = 'x'.repeat(5_000_000)
    expect(printedIn(`[${long}]\n`)).toBeUndefined()
    expect(printedIn(`     1\t${long}\n     2\t${long}\n`)).toMatchObject({ kind: 'line-numbers', lines: 2 })
  })
})
