import { expect, it } from 'vitest'
import type { FsEditRequest } from '../types'
import { type Harness, expectFsError, needs, utf8, type ClauseGroup } from './harness'

export const edits: ClauseGroup = { title: 'editText', clauses: editClauses }

export function editClauses(h: Harness): void {
  const withEditLines = needs(h, 'editLines')
  const edit = (oldString: string, newString: string, replaceAll = false) => ({ oldString, newString, replaceAll })

  it('replaces a unique match and reports the new version and texts', async () => {
    await h.external.write('e.txt', 'alpha\nbeta\ngamma\n')
    const outcome = await h.fs.editText(await h.target('e.txt'), edit('beta', 'BETA'))
    expect(outcome).toMatchObject({ replacements: 1, before: 'alpha\nbeta\ngamma\n', after: 'alpha\nBETA\ngamma\n' })
    expect(await h.disk('e.txt')).toBe('alpha\nBETA\ngamma\n')
    expect(await h.version('e.txt')).toBe(outcome.version)
  })

  it('checks the version before matching, so a stale edit never reports a match error', async () => {
    await h.external.write('e.txt', 'one')
    const version = await h.version('e.txt')
    await h.external.write('e.txt', 'two')
    await expectFsError(h.fs.editText(await h.target('e.txt'), edit('not there', 'x'), { expected: { version } }), 'FS_STALE_VERSION')
    expect(await h.disk('e.txt')).toBe('two')
  })

  it('applies an edit at the expected version', async () => {
    await h.external.write('e.txt', 'one')
    const version = await h.version('e.txt')
    await h.fs.editText(await h.target('e.txt'), edit('one', 'two'), { expected: { version } })
    expect(await h.disk('e.txt')).toBe('two')
  })

  it('fails FS_STALE_VERSION on a missing target, with or without a guard', async () => {
    await h.external.write('gone.txt', 'x')
    const version = await h.version('gone.txt')
    await h.external.remove('gone.txt')
    const target = await h.target('gone.txt')
    await expectFsError(h.fs.editText(target, edit('x', 'y'), { expected: { version } }), 'FS_STALE_VERSION')
    await expectFsError(h.fs.editText(target, edit('x', 'y')), 'FS_STALE_VERSION')
    expect(await h.external.read('gone.txt')).toBeUndefined()
  })

  it('fails FS_EDIT_NOT_FOUND for a missing or empty old string and changes nothing', async () => {
    await h.external.write('e.txt', 'content\n')
    const target = await h.target('e.txt')
    const before = await h.version('e.txt')
    await expectFsError(h.fs.editText(target, edit('absent', 'x')), 'FS_EDIT_NOT_FOUND')
    await expectFsError(h.fs.editText(target, edit('', 'x')), 'FS_EDIT_NOT_FOUND')
    expect(await h.disk('e.txt')).toBe('content\n')
    expect(await h.version('e.txt')).toBe(before)
  })

  it('fails FS_AMBIGUOUS_EDIT for several matches without replaceAll and changes nothing', async () => {
    await h.external.write('e.txt', 'x = 1\nx = 1\n')
    await expectFsError(h.fs.editText(await h.target('e.txt'), edit('x = 1', 'x = 2')), 'FS_AMBIGUOUS_EDIT')
    expect(await h.disk('e.txt')).toBe('x = 1\nx = 1\n')
  })

  withEditLines('reports where the edit landed, in lines of the new text, whatever the line endings', async () => {
    await h.external.write('lines.txt', 'one\r\ntwo\r\nthree\r\nfour\r\n')
    const outcome = await h.fs.editText(await h.target('lines.txt'), edit('three', '3a\n3b'))
    expect(outcome.changes).toEqual([{ line: 3, removedLines: 1, addedLines: 2 }])
    expect(outcome.lineTotals).toEqual({ added: 2, removed: 1 })
    await h.external.write('many.txt', 'x\ny\nx x\ny\n')
    const all = await h.fs.editText(await h.target('many.txt'), edit('x', 'z\nz', true))
    expect(all.changes).toEqual([{ line: 1, removedLines: 1, addedLines: 2 }, { line: 4, removedLines: 1, addedLines: 3 }])
    expect(all.lineTotals).toEqual({ added: 5, removed: 2 })
  })

  it('names the distinct lines of every occurrence on FS_AMBIGUOUS_EDIT, as data', async () => {
    await h.external.write('e.txt', 'x = 1\nother\nx = 1; x = 1\n')
    const error = await expectFsError(h.fs.editText(await h.target('e.txt'), edit('x = 1', 'x = 2')), 'FS_AMBIGUOUS_EDIT')
    expect(error.occurrences).toEqual({ count: 3, lines: [1, 3], truncated: false })
  })

  it('refuses an edit whose result would be too large before building it, and changes nothing', async () => {
    // 500 KB of matches, each replaced by 1 KB: the 500 MB result is refused, never allocated.
    const text = 'a'.repeat(500_000)
    await h.external.write('grow.txt', text)
    const version = await h.version('grow.txt')
    await expectFsError(h.fs.editText(await h.target('grow.txt'), edit('a', 'b'.repeat(1000), true)), 'FS_TOO_LARGE')
    expect(await h.disk('grow.txt')).toBe(text)
    expect(await h.version('grow.txt')).toBe(version)
  })

  it('replaces every match with replaceAll and counts them', async () => {
    await h.external.write('e.txt', 'a-a-a')
    const outcome = await h.fs.editText(await h.target('e.txt'), edit('a', 'bb', true))
    expect(outcome.replacements).toBe(3)
    expect(await h.disk('e.txt')).toBe('bb-bb-bb')
  })

  // Edits whose whole point is the bytes they leave: the file before, the edit, the file after.
  const bytewise: [name: string, before: string | Uint8Array, edit: FsEditRequest, after: string | Uint8Array][] = [
    ['writes $&, $\', $` and $$ in the new string literally', 'price: X;\n', edit('X', "$& $' $` $$ $1"), "price: $& $' $` $$ $1;\n"],
    ['keeps the BOM of an edited file', withBom('key = old\n'), edit('old', 'new'), withBom('key = new\n')],
    ['keeps mixed line endings byte-identical outside the replaced span', 'one\r\ntwo\nthree\r\nfour\n', edit('three', '3'), 'one\r\ntwo\n3\r\nfour\n'],
    ['matches LF against CRLF and gives inserted lines the file\'s line ending', 'a\r\nb\r\nc\n', edit('a\nb', 'a\nb1\nb2'), 'a\r\nb1\r\nb2\r\nc\n'],
  ]
  for (const [name, before, change, after] of bytewise) {
    it(name, async () => {
      await h.external.write('e.txt', before)
      await h.fs.editText(await h.target('e.txt'), change)
      if (typeof after === 'string') expect(await h.disk('e.txt')).toBe(after)
      else expect([...(await h.external.read('e.txt'))!]).toEqual([...after])
    })
  }

  it('keeps the own ending of each line an edit rewrites in a file of mixed line endings', async () => {
    // CRLF dominates; line two ends with LF inside the edited span and must keep it.
    await h.external.write('mixed-span.txt', 'one\r\ntwo\nthree\r\nfour\r\n')
    await h.fs.editText(await h.target('mixed-span.txt'), edit('one\ntwo\nthree', 'ONE\nTWO\nTHREE'))
    expect(await h.disk('mixed-span.txt')).toBe('ONE\r\nTWO\nTHREE\r\nfour\r\n')
    await h.fs.editTextMany(await h.target('mixed-span.txt'), [edit('TWO\nTHREE\nfour', '2\n3\n4')])
    expect(await h.disk('mixed-span.txt')).toBe('ONE\r\n2\n3\r\n4\r\n')
  })

  it('round-trips a no-op edit byte for byte', async () => {
    const bytes = withBom('x\r\ny\nz\r\n')
    await h.external.write('noop.txt', bytes)
    const target = await h.target('noop.txt')
    const text = await h.fs.readText(target)
    await h.fs.editText(target, edit(text.slice(0, 6), text.slice(0, 6)))
    expect([...(await h.external.read('noop.txt'))!]).toEqual([...bytes])
  })

  it('refuses to edit a directory or a binary file with a typed error', async () => {
    await h.external.mkdir('d')
    await expectFsError(h.fs.editText(await h.target('d'), edit('a', 'b')), 'FS_NOT_REGULAR_FILE')
    await h.external.write('bin', Uint8Array.of(0x61, 0x00, 0x62))
    await expectFsError(h.fs.editText(await h.target('bin'), edit('a', 'b')), 'FS_NOT_TEXT')
    expect([...(await h.external.read('bin'))!]).toEqual([0x61, 0x00, 0x62])
  })
}

const withBom = (text: string) => Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8(text))
