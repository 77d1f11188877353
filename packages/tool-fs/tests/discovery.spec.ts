import { execFile } from 'node:child_process'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s?.dispose()
})

async function tree(files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(s.path(name)), { recursive: true })
    await s.put(name, text)
  }
}

describe('glob', () => {
  it('lists matching paths in path order with a count, and continues exactly from offset', async () => {
    s = await stack({ policy: true, config: { globLimit: 2 } })
    await tree({ 'b.ts': '', 'a.ts': '', 'src/c.ts': '', 'src/d.js': '', 'src/e/f.ts': '' })
    const first = await s.text('glob', { pattern: '**/*.ts' })
    expect(first).toBe([
      `4 files under ${s.dir} match "**/*.ts" (in path order):`, s.path('a.ts'), s.path('b.ts'), '',
      '[Showing 1-2 of 4. To see more, call glob with offset=2.]',
    ].join('\n'))
    expect(await s.text('glob', { pattern: '**/*.ts', offset: 2 })).toBe(
      [`4 files under ${s.dir} match "**/*.ts" (in path order):`, s.path('src/c.ts'), s.path('src/e/f.ts')].join('\n'))
  })

  it('walks from the plain part of a pattern that leads out of path, and escapes odd names', async () => {
    s = await stack({ policy: false })
    await tree({ 'src/x.ts': '', 'src/line\nbreak.ts': '' })
    const text = await s.text('glob', { pattern: '../src/*.ts', path: join(s.dir, 'src') })
    expect(text.split('\n').slice(1)).toEqual([JSON.stringify(s.path('src/line\nbreak.ts')), s.path('src/x.ts')])
  })

  it('honours .gitignore unless include_ignored is true', async () => {
    s = await stack({ policy: false })
    await tree({ '.gitignore': 'dist/\n', 'dist/out.js': '', 'src/in.js': '', '.git/config.js': '' })
    expect(await s.text('glob', { pattern: '**/*.js' })).toBe(`1 file under ${s.dir} match "**/*.js" (in path order):\n${s.path('src/in.js')}`)
    expect((await s.text('glob', { pattern: '**/*.js', include_ignored: true })).split('\n').slice(1)).toEqual([s.path('dist/out.js'), s.path('src/in.js')])
  })

  it('refuses an invalid glob with a typed error that quotes it', async () => {
    s = await stack({ policy: false })
    const result = await s.call('glob', { pattern: 'src/[a-' })
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('FS_INVALID_PATTERN')
    expect(result.content[0]!.text).toContain('"src/[a-"')
  })
})

describe('grep', () => {
  it('shows content in the read format, so a following edit can copy from it after a read', async () => {
    s = await stack({ policy: true })
    await tree({ 'src/a.ts': 'const x = 1\nfunction go() {\n  return x\n}\n', 'src/b.ts': 'nothing\n' })
    const text = await s.text('grep', { pattern: 'function \\w+', output_mode: 'content', context: 1 })
    expect(text).toBe([s.path('src/a.ts'), '     1\tconst x = 1', '     2\tfunction go() {', '     3\t  return x'].join('\n'))
    // A search is no observation: the edit is refused until the file is read.
    expect((await s.call('edit', { file_path: 'src/a.ts', old_string: 'function go() {', new_string: 'function run() {' })).error?.code).toBe('FS_NOT_OBSERVED')
    await s.call('read', { file_path: 'src/a.ts' })
    expect((await s.call('edit', { file_path: 'src/a.ts', old_string: 'function go() {', new_string: 'function run() {' })).isError).toBe(false)
  })

  it('lists files with matches, counts them, and pages content with an exact offset', async () => {
    s = await stack({ policy: false, config: { grepContentLimit: 2 } })
    await tree({ 'a.txt': 'hit 1\nmiss\nHIT 2\n', 'b.md': 'hit 3\n', 'c.txt': 'none\n' })
    expect(await s.text('grep', { pattern: 'hit' })).toBe([s.path('a.txt'), s.path('b.md')].join('\n'))
    expect(await s.text('grep', { pattern: 'hit', case_insensitive: true, output_mode: 'count', glob: '*.txt' })).toBe(`${s.path('a.txt')}: 2`)
    const first = await s.text('grep', { pattern: 'hit', case_insensitive: true, output_mode: 'content' })
    expect(first).toBe([s.path('a.txt'), '     1\thit 1', '     3\tHIT 2', '',
      '[Showing matching lines 1-2; more exist. To see more, call grep with the same arguments and offset=2.]'].join('\n'))
    expect(await s.text('grep', { pattern: 'hit', case_insensitive: true, output_mode: 'content', offset: 2 })).toBe([s.path('b.md'), '     1\thit 3'].join('\n'))
  })

  it('refuses an invalid regular expression with a typed error that quotes it', async () => {
    s = await stack({ policy: false })
    const result = await s.call('grep', { pattern: 'foo(' })
    expect(result.error?.code).toBe('FS_INVALID_PATTERN')
    expect(result.content[0]!.text).toContain('"foo("')
  })

  it('skips binary files and says so', async () => {
    s = await stack({ policy: false })
    await s.put('blob.bin', Buffer.from('needle\0\x01'))
    await s.put('t.txt', 'needle\n')
    expect(await s.text('grep', { pattern: 'needle' })).toBe(`${s.path('t.txt')}\n\n[Not searched: 1 binary file.]`)
  })

  it('does not block on a FIFO in the tree', async () => {
    s = await stack({ policy: false })
    await promisify(execFile)('mkfifo', [s.path('pipe')])
    await s.put('t.txt', 'needle\n')
    expect(await s.text('grep', { pattern: 'needle' })).toBe(s.path('t.txt'))
    expect(await s.text('list', {})).toContain('pipe (special file)')
  })
})

describe('list', () => {
  it('shows a tree with types and sizes to the given depth, leaving out ignore patterns', async () => {
    s = await stack({ policy: false })
    await tree({ 'a/b/c.txt': 'deep', 'a/one.txt': '1', 'z.log': 'zz' })
    await symlink('a', s.path('link'))
    expect(await s.text('list', { depth: 2, ignore: ['*.log'] })).toBe([
      `${s.dir}/`, '  a/', '    b/', '    one.txt (1 B)', '  link (symlink, not followed)', '', '(4 entries to depth 2; files are shown with their sizes)',
    ].join('\n'))
  })
})

describe('discovery with a containment root', () => {
  it('refuses a path outside the root with FS_OUTSIDE_ROOT', async () => {
    s = await stack({ policy: false, rooted: true })
    for (const [name, args] of [['glob', { pattern: '*', path: '..' }], ['grep', { pattern: 'x', path: '/' }], ['list', { path: '../..' }]] as const) {
      const result = await s.call(name, args, null)
      expect(result.error?.code, name).toBe('FS_OUTSIDE_ROOT')
    }
    // A glob cannot climb out either: its plain part becomes the walk's root, and is checked.
    expect((await s.call('glob', { pattern: '../**/*' }, null)).error?.code).toBe('FS_OUTSIDE_ROOT')
  })
})

describe('multi_edit', () => {
  it('applies every edit to one snapshot, publishes once and shows each change', async () => {
    s = await stack({ policy: true })
    const letters = 'abcdefghijklmnopqrst'.split('')
    await s.put('m.ts', `${letters.join('\n')}\n`)
    await s.call('read', { file_path: 'm.ts' })
    s.log.calls.length = 0
    const text = await s.text('multi_edit', { file_path: 'm.ts', edits: [
      { old_string: 'b', new_string: 'B' },
      { old_string: 's\nt', new_string: 'S\nT\nU' },
    ] })
    expect((await s.bytes('m.ts'))?.toString()).toBe(`a\nB\n${letters.slice(2, 18).join('\n')}\nS\nT\nU\n`)
    expect(s.log.calls.filter((call) => call === 'writeText' || call === 'editText')).toEqual(['writeText'])
    const letterLines = letters.slice(0, 16).map((letter, i) => `${String(i + 1).padStart(6)}\t${i === 1 ? 'B' : letter}`)
    expect(text).toBe([
      `Edited ${s.path('m.ts')}: 2 edits, 2 replacements; the changes lie within lines 2-21 of the new text, where 19 lines stood before.`,
      'The file from the first change now reads:', ...letterLines,
    ].join('\n'))
    // Success is an observation, as for edit: the next edit needs no new read.
    expect((await s.call('edit', { file_path: 'm.ts', old_string: 'U', new_string: 'u' })).isError).toBe(false)
  })

  it('writes nothing when one edit fails, and names it', async () => {
    s = await stack({ policy: true })
    await s.put('m.ts', 'one two one\n')
    await s.call('read', { file_path: 'm.ts' })
    const missing = await s.call('multi_edit', { file_path: 'm.ts', edits: [{ old_string: 'two', new_string: '2' }, { old_string: 'three', new_string: '3' }] })
    expect(missing.error?.code).toBe('FS_EDIT_NOT_FOUND')
    expect(missing.content[0]!.text).toMatch(/^edits\[1\] \(after edits\[0\.\.0\]\): old_string was not found/)
    const ambiguous = await s.call('multi_edit', { file_path: 'm.ts', edits: [{ old_string: 'one', new_string: '1' }] })
    expect(ambiguous.error?.code).toBe('FS_AMBIGUOUS_EDIT')
    const same = await s.call('multi_edit', { file_path: 'm.ts', edits: [{ old_string: 'two', new_string: '2' }, { old_string: 'one', new_string: 'one' }] })
    expect(same.error?.code).toBe('INVALID_ARGUMENTS')
    expect(same.content[0]!.text).toContain('edits[1]')
    expect(await s.bytes('m.ts')).toEqual(Buffer.from('one two one\n'))
  })

  it('is gated by the policy exactly like edit', async () => {
    s = await stack({ policy: true })
    await s.put('m.ts', 'x\n')
    expect((await s.call('multi_edit', { file_path: 'm.ts', edits: [{ old_string: 'x', new_string: 'y' }] })).error?.code).toBe('FS_NOT_OBSERVED')
    await s.call('read', { file_path: 'm.ts' })
    await writeFile(s.path('m.ts'), 'x changed\n')
    expect((await s.call('multi_edit', { file_path: 'm.ts', edits: [{ old_string: 'x', new_string: 'y' }] })).error?.code).toBe('FS_STALE_VERSION')
    expect(await s.bytes('m.ts')).toEqual(Buffer.from('x changed\n'))
  })

  it('keeps the BOM and CRLF line endings, and replacement text stays literal', async () => {
    s = await stack({ policy: false })
    await s.put('w.txt', '\ufeffone\r\ntwo\r\n')
    await s.call('multi_edit', { file_path: 'w.txt', edits: [{ old_string: 'one', new_string: '$& and $$' }, { old_string: 'two', new_string: 'two\nthree' }] })
    expect(await s.bytes('w.txt')).toEqual(Buffer.from('\ufeff$& and $$\r\ntwo\r\nthree\r\n'))
  })
})

