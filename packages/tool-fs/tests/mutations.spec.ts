import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

describe('write', () => {
  it('creates a file and says so with its line count', async () => {
    s = await stack({ policy: true })
    expect(await s.call('write', { file_path: 'a.txt', content: 'one\ntwo\n' })).toEqual({
      content: [{ type: 'text', text: `Created ${s.path('a.txt')} (2 lines).` }],
      isError: false,
    })
    expect(await readFile(s.path('a.txt'), 'utf8')).toBe('one\ntwo\n')
  })

  it('says which lines an overwrite replaced and shows the numbered lines around them', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'a\nb\nc\n')
    await s.call('read', { file_path: 'a.txt' })
    expect(await s.text('write', { file_path: 'a.txt', content: 'a\nB\nc\nd\n' })).toBe([
      `Updated ${s.path('a.txt')}: replaced lines 2-3 with 3 lines (4 lines now).`,
      'The file around the change now reads:',
      '     1\ta',
      '     2\tB',
      '     3\tc',
      '     4\td',
    ].join('\n'))
  })

  it('names added and removed lines of an overwrite by number', async () => {
    s = await stack({ policy: true, config: { editSnippetContext: 1 } })
    await s.put('a.txt', 'a\nb\nc\n')
    await s.call('read', { file_path: 'a.txt' })
    expect(await s.text('write', { file_path: 'a.txt', content: 'a\nb\nnew 1\nnew 2\nc\n' })).toBe(
      `Updated ${s.path('a.txt')}: added lines 3-4 (5 lines now).\nThe file around the change now reads:\n     2\tb\n     3\tnew 1\n     4\tnew 2\n     5\tc`,
    )
    await s.call('read', { file_path: 'a.txt' })
    expect(await s.text('write', { file_path: 'a.txt', content: 'a\nc\n' })).toBe(
      `Updated ${s.path('a.txt')}: removed lines 2-4 (2 lines now).\nThe file around the change now reads:\n     1\ta\n     2\tc`,
    )
  })

  // 12,000 (24 KB) and 20,000 (40 KB) changed lines: a line diff of these took 19-26 s and 111 s
  // on the event loop; the bounded count is one pass.
  it.each([12_000, 20_000])('counts an overwrite of all %i lines of a file without diffing them', async (count) => {
    s = await stack({ policy: true })
    const lines = (letter: string) => Array.from({ length: count }, (_, i) => `${letter}${i % 10}`).join('\n') + '\n'
    await s.put('big.txt', lines('a'))
    await s.call('read', { file_path: 'big.txt' })
    const text = await s.text('write', { file_path: 'big.txt', content: lines('b') })
    expect(text.split('\n')[0]).toBe(`Updated ${s.path('big.txt')}: changed lines 1-${count} (${count} lines now).`)
    expect(await readFile(s.path('big.txt'), 'utf8')).toBe(lines('b'))
    const edited = await s.text('edit', { file_path: 'big.txt', old_string: lines('b'), new_string: lines('c') })
    expect(edited.split('\n')[0]).toBe(`Edited ${s.path('big.txt')}: 1 replacement, ${count} lines added, ${count} removed.`)
    expect(await readFile(s.path('big.txt'), 'utf8')).toBe(lines('c'))
  })

  it('says when an overwrite changed nothing', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'same\n')
    await s.call('read', { file_path: 'a.txt' })
    expect(await s.text('write', { file_path: 'a.txt', content: 'same\n' })).toBe(`Updated ${s.path('a.txt')}: the content is unchanged (1 line).`)
  })

  it('keeps the BOM and CRLF of the file it overwrites, and counts no line as changed for them', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', '\ufeffa\r\nb\r\n')
    await s.call('read', { file_path: 'a.txt' })
    expect(await s.text('write', { file_path: 'a.txt', content: 'a\nc\n' })).toBe(
      `Updated ${s.path('a.txt')}: changed line 2 (2 lines now).\nThe file around the change now reads:\n     1\ta\n     2\tc`,
    )
    expect(await s.bytes('a.txt')).toEqual(Buffer.from('\ufeffa\r\nc\r\n'))
  })

  it('can edit right after writing, without reading again', async () => {
    s = await stack({ policy: true })
    await s.call('write', { file_path: 'a.txt', content: 'draft\n' })
    expect((await s.call('edit', { file_path: 'a.txt', old_string: 'draft', new_string: 'final' })).isError).toBe(false)
    expect(await readFile(s.path('a.txt'), 'utf8')).toBe('final\n')
  })
})

describe('edit', () => {
  it('reports the replacement and shows the numbered lines around it', async () => {
    s = await stack({ policy: true })
    await s.put('a.ts', Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n'))
    await s.call('read', { file_path: 'a.ts' })
    expect(await s.text('edit', { file_path: 'a.ts', old_string: 'line 6', new_string: 'line six\nline six and a half' })).toBe([
      `Edited ${s.path('a.ts')}: 1 replacement, 2 lines added, 1 removed.`,
      // Four lines either side: the snippet rule of both families.
      'The file around the change now reads:',
      '     2\tline 2',
      '     3\tline 3',
      '     4\tline 4',
      '     5\tline 5',
      '     6\tline six',
      '     7\tline six and a half',
      '     8\tline 7',
      '     9\tline 8',
      '    10\tline 9',
      '    11\tline 10',
    ].join('\n'))
  })

  it('counts every replacement of replace_all and shows the first', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'x\ny\nx\n')
    await s.call('read', { file_path: 'a.txt' })
    expect(await s.text('edit', { file_path: 'a.txt', old_string: 'x', new_string: 'z', replace_all: true })).toBe([
      `Edited ${s.path('a.txt')}: 2 replacements, 2 lines added, 2 removed.`,
      'The file around the first replacement now reads:',
      '     1\tz',
      '     2\ty',
      '     3\tz',
    ].join('\n'))
    expect(await readFile(s.path('a.txt'), 'utf8')).toBe('z\ny\nz\n')
  })

  it('shows the lines around an edit deep in a file above the provider\'s diff bound', async () => {
    s = await stack({ policy: true })
    // 30,001 filler lines (about 700 KB, above the 512 KiB diffMaxBytes) before the target.
    const head = Array.from({ length: 30_001 }, (_, i) => `filler line ${i + 1}`).join('\n')
    await s.put('big.txt', `${head}\ntarget\nafter 1\nafter 2\nafter 3\nafter 4\n`)
    await s.call('read', { file_path: 'big.txt', offset: 30_000, limit: 5 })
    expect(await s.text('edit', { file_path: 'big.txt', old_string: 'target', new_string: 'hit 1\nhit 2' })).toBe([
      `Edited ${s.path('big.txt')}: 1 replacement, 2 lines added, 1 removed.`,
      'The file around the change now reads:',
      ' 29998\tfiller line 29998',
      ' 29999\tfiller line 29999',
      ' 30000\tfiller line 30000',
      ' 30001\tfiller line 30001',
      ' 30002\thit 1',
      ' 30003\thit 2',
      ' 30004\tafter 1',
      ' 30005\tafter 2',
      ' 30006\tafter 3',
      ' 30007\tafter 4',
    ].join('\n'))
  })

  it('counts every replacement of replace_all in a large file, and shows the first', async () => {
    s = await stack({ policy: true, config: { editSnippetContext: 1 } })
    const text = Array.from({ length: 40_000 }, (_, i) => (i % 10_000 === 9_999 ? 'needle' : `line ${i + 1}`)).join('\n')
    await s.put('big.txt', text)
    await s.call('read', { file_path: 'big.txt', limit: 1 })
    expect(await s.text('edit', { file_path: 'big.txt', old_string: 'needle', new_string: 'a\nb\nc', replace_all: true })).toBe([
      `Edited ${s.path('big.txt')}: 4 replacements, 12 lines added, 4 removed.`,
      'The file around the first replacement now reads:',
      '  9999\tline 9999',
      ' 10000\ta',
      ' 10001\tb',
      ' 10002\tc',
      ' 10003\tline 10001',
    ].join('\n'))
  })

  it('writes $& and $$ in new_string literally', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'price\n')
    await s.call('read', { file_path: 'a.txt' })
    await s.call('edit', { file_path: 'a.txt', old_string: 'price', new_string: "$& costs $$5 $'" })
    expect(await readFile(s.path('a.txt'), 'utf8')).toBe("$& costs $$5 $'\n")
  })

  it('keeps CRLF on disk and shows the snippet without carriage returns', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'one\r\ntwo\r\n')
    await s.call('read', { file_path: 'a.txt' })
    const text = await s.text('edit', { file_path: 'a.txt', old_string: 'two', new_string: 'two\nthree' })
    expect(text).toBe(`Edited ${s.path('a.txt')}: 1 replacement, 1 line added, 0 removed.\nThe file around the change now reads:\n     1\tone\n     2\ttwo\n     3\tthree`)
    expect(await s.bytes('a.txt')).toEqual(Buffer.from('one\r\ntwo\r\nthree\r\n'))
  })

  it('says how to disambiguate an old_string that occurs more than once', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'dup\ndup\n')
    await s.call('read', { file_path: 'a.txt' })
    const result = await s.call('edit', { file_path: 'a.txt', old_string: 'dup', new_string: 'one' })
    expect(result.error?.code).toBe('FS_AMBIGUOUS_EDIT')
    expect(result.content[0]!.text).toMatch(/; include more surrounding lines in old_string so it matches once, or set replace_all to true$/)
    expect(await readFile(s.path('a.txt'), 'utf8')).toBe('dup\ndup\n')
  })

  it('names a line that holds several occurrences once', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'x = x + 1\ny = x\n')
    await s.call('read', { file_path: 'a.txt' })
    const oneLine = await s.call('edit', { file_path: 'a.txt', old_string: 'x =', new_string: 'z =' })
    expect(oneLine.isError).toBe(false)
    const shared = await s.call('edit', { file_path: 'a.txt', old_string: 'x', new_string: 'w' })
    expect(shared.error?.code).toBe('FS_AMBIGUOUS_EDIT')
    // Two occurrences: line 1 (`z = x + 1`) and line 2; each line is named once.
    expect(shared.content[0]!.text).toBe(`old_string occurs 2 times in ${s.path('a.txt')} (lines 1, 2); `
      + 'include more surrounding lines in old_string so it matches once, or set replace_all to true')
    await s.put('b.txt', 'a + a\n')
    await s.call('read', { file_path: 'b.txt' })
    const same = await s.call('edit', { file_path: 'b.txt', old_string: 'a', new_string: 'b' })
    expect(same.content[0]!.text).toBe(`old_string occurs 2 times in ${s.path('b.txt')} (all on line 1); `
      + 'include more surrounding lines in old_string so it matches once, or set replace_all to true')
    expect(await readFile(s.path('b.txt'), 'utf8')).toBe('a + a\n')
  })

  it('says how to fix an old_string that is not in the file', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'text\n')
    await s.call('read', { file_path: 'a.txt' })
    const result = await s.call('edit', { file_path: 'a.txt', old_string: '     1\ttext', new_string: 'x' })
    expect(result.error?.code).toBe('FS_EDIT_NOT_FOUND')
    // The closest region, numbered, and what differs; the file is known unchanged, so no re-read is asked for.
    expect(result.content[0]!.text).toContain('The closest text is line 1:\n     1\ttext\n')
    expect(result.content[0]!.text).toContain('old_string starts with line numbers')
    expect(result.content[0]!.text).not.toMatch(/re-read/)
  })

  it('refuses an edit whose old_string and new_string are the same, before touching the file', async () => {
    s = await stack({ policy: true })
    const result = await s.call('edit', { file_path: 'a.txt', old_string: 'same', new_string: 'same' })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(s.log.calls).toEqual([])
  })
})
