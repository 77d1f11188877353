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

  it('reports the lines added and removed by an overwrite', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'a\nb\nc\n')
    await s.call('read', { file_path: 'a.txt' })
    expect(await s.text('write', { file_path: 'a.txt', content: 'a\nB\nc\nd\n' })).toBe(`Updated ${s.path('a.txt')}: 2 lines added, 1 removed (4 lines now).`)
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
    expect(await s.text('write', { file_path: 'a.txt', content: 'a\nc\n' })).toBe(`Updated ${s.path('a.txt')}: 1 line added, 1 removed (2 lines now).`)
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
      'The file around the change now reads:',
      '     3\tline 3',
      '     4\tline 4',
      '     5\tline 5',
      '     6\tline six',
      '     7\tline six and a half',
      '     8\tline 7',
      '     9\tline 8',
      '    10\tline 9',
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
