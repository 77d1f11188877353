import { expect, it } from 'vitest'
import type { FsWalkOptions } from '../discovery-types'
import { editIndexOf } from '../errors'
import { expectFsError, type Harness, needs, within, type ClauseGroup } from './harness'

const all = { limit: 1000 } satisfies FsWalkOptions

export const discovery: ClauseGroup = { title: 'discovery (walk, search) and editTextMany', clauses: discoveryClauses }

export function discoveryClauses(h: Harness): void {
  const withSymlinks = needs(h, 'symlinks')
  const withSpecialFiles = needs(h, 'specialFiles')
  const root = () => h.target('.')
  const paths = async (options: FsWalkOptions = all) => (await h.fs.walk(await root(), options)).entries.map((entry) => entry.path)

  it('walks depth first in name order, with types and sizes, and never enters .git', async () => {
    await h.files({ 'b.txt': 'bee', 'a/z.ts': 'z', 'a/c/d.ts': 'dd', '.git/HEAD': 'ref', '.github/ci.yml': 'on: push' })
    const result = await h.fs.walk(await root(), { ...all, sizes: true })
    expect(result.entries.map((entry) => [entry.path, entry.type])).toEqual([
      ['.github', 'directory'], ['.github/ci.yml', 'file'],
      ['a', 'directory'], ['a/c', 'directory'], ['a/c/d.ts', 'file'], ['a/z.ts', 'file'], ['b.txt', 'file'],
    ])
    expect(result.entries.find((entry) => entry.path === 'a/c/d.ts')?.size).toBe(2)
    expect(result).toMatchObject({ total: 7, complete: true })
  })

  it('honours .gitignore files at every level, and includeIgnored reports what they exclude', async () => {
    await h.files({
      '.gitignore': 'build/\n*.log\n!keep.log\n',
      'build/out.js': 'x',
      'debug.log': 'x',
      'keep.log': 'x',
      'src/.gitignore': 'gen.ts\n',
      'src/gen.ts': 'x',
      'src/main.ts': 'x',
    })
    expect(await paths()).toEqual(['.gitignore', 'keep.log', 'src', 'src/.gitignore', 'src/main.ts'])
    expect(await paths({ ...all, includeIgnored: true })).toEqual([
      '.gitignore', 'build', 'build/out.js', 'debug.log', 'keep.log', 'src', 'src/.gitignore', 'src/gen.ts', 'src/main.ts',
    ])
    expect(await paths({ ...all, includeIgnored: true, exclude: ['src'] })).toEqual(['.gitignore', 'build', 'build/out.js', 'debug.log', 'keep.log'])
  })

  it('matches globs on relative paths, bounds the depth, and continues exactly from an offset', async () => {
    for (const name of ['a.ts', 'a.js', 'x/b.ts', 'x/y/c.ts', 'x/y/d.md']) await h.external.write(name, name)
    expect(await paths({ ...all, glob: ['**/*.ts'] })).toEqual(['a.ts', 'x/b.ts', 'x/y/c.ts'])
    expect(await paths({ ...all, glob: ['*.ts'] })).toEqual(['a.ts'])
    expect(await paths({ ...all, glob: ['*.ts'], matchBase: true })).toEqual(['a.ts', 'x/b.ts', 'x/y/c.ts'])
    expect(await paths({ ...all, maxDepth: 1 })).toEqual(['a.js', 'a.ts', 'x'])
    const first = await h.fs.walk(await root(), { limit: 2 })
    const rest = await h.fs.walk(await root(), { limit: 100, offset: 2 })
    expect([...first.entries, ...rest.entries].map((entry) => entry.path)).toEqual(await paths())
    expect(first.total).toBe(7)
    const stopped = await h.fs.walk(await root(), { limit: 100, maxVisited: 3 })
    expect(stopped).toMatchObject({ complete: false })
    expect(stopped.entries.length).toBeLessThanOrEqual(3)
  })

  it('reports names with newlines and quotes exactly', async () => {
    await h.files({ 'line\nbreak.txt': 'needle\n', 'say "hi".txt': 'needle\n' })
    expect(await paths()).toEqual(['line\nbreak.txt', 'say "hi".txt'])
    const found = await h.fs.search(await root(), { pattern: 'needle', mode: 'files', limit: 10 })
    expect(found.files.map((file) => file.path)).toEqual(['line\nbreak.txt', 'say "hi".txt'])
  })

  it('fails FS_INVALID_PATTERN on an invalid glob or regular expression', async () => {
    await h.external.write('a.ts', 'x')
    const error = await expectFsError(h.fs.walk(await root(), { ...all, glob: ['src/[a-'] }), 'FS_INVALID_PATTERN')
    expect(error.message).toContain('src/[a-')
    await expectFsError(h.fs.walk(await root(), { ...all, glob: ['../**'] }), 'FS_INVALID_PATTERN')
    const regex = await expectFsError(h.fs.search(await root(), { pattern: 'a(b', mode: 'files', limit: 10 }), 'FS_INVALID_PATTERN')
    expect(regex.message).toContain('a(b')
  })

  it('matches in linear time: patterns that backtrack for years finish, lookaround is refused by name', async () => {
    // A backtracking engine needs about 2^40 steps for the first and 10^11 for the second.
    await h.files({ 'nested.txt': `${'a'.repeat(40)}!\n`, 'minified.js': `${'import '.repeat(140_000)}\n` })
    const base = await root()
    const nested = await h.fs.search(base, { pattern: '(a+)+$', mode: 'files', limit: 10 })
    expect(nested.files).toEqual([])
    const long = await h.fs.search(base, { pattern: 'import.*from', mode: 'files', limit: 10 })
    expect(long).toMatchObject({ files: [], complete: true })
    const found = await h.fs.search(base, { pattern: '(a+)+!$', mode: 'lines', limit: 10 })
    expect(found.files.map((file) => file.path)).toEqual(['nested.txt'])
    const look = await expectFsError(h.fs.search(base, { pattern: 'a(?=b)', mode: 'files', limit: 10 }), 'FS_INVALID_PATTERN')
    expect(look.message).toMatch(/lookahead.*not supported/)
    const back = await expectFsError(h.fs.search(base, { pattern: '(a)\\1', mode: 'files', limit: 10 }), 'FS_INVALID_PATTERN')
    expect(back.message).toMatch(/backreferences.*not supported/)
  })

  it('leaves lines over 1 MiB to plain-text patterns, and counts what a regular expression passed over', async () => {
    await h.external.write('huge.txt', `short needle\n${'x'.repeat(1024 * 1024)}needle\n`)
    const base = await root()
    const regex = await h.fs.search(base, { pattern: 'ne+dle', mode: 'count', limit: 10 })
    expect(regex.files).toEqual([{ path: 'huge.txt', count: 1 }])
    expect(regex.skipped.longLines).toBe(1)
    const plain = await h.fs.search(base, { pattern: 'needle', mode: 'count', limit: 10 })
    expect(plain.files).toEqual([{ path: 'huge.txt', count: 2 }])
    expect(plain.skipped.longLines ?? 0).toBe(0)
  })

  it('searches lines with their numbers, context, case folding and counts', async () => {
    await h.files({ 'one.txt': 'alpha\nbeta\r\ngamma\nBeta max\n', 'sub/two.txt': 'no match here\n', 'sub/three.md': 'beta\n' })
    const base = await root()
    const lines = await h.fs.search(base, { pattern: 'beta', mode: 'lines', limit: 10, context: 1 })
    expect(lines.files).toEqual([
      { path: 'one.txt', count: 1, lines: [{ line: 1, text: 'alpha', match: false }, { line: 2, text: 'beta', match: true }, { line: 3, text: 'gamma', match: false }] },
      { path: 'sub/three.md', count: 1, lines: [{ line: 1, text: 'beta', match: true }] },
    ])
    const folded = await h.fs.search(base, { pattern: 'b\\w+a', caseInsensitive: true, mode: 'count', limit: 10, glob: ['*.txt'], matchBase: true })
    expect(folded.files).toEqual([{ path: 'one.txt', count: 2 }])
    expect(folded).toMatchObject({ more: false, complete: true })
  })

  it('pages search results exactly and says when more exist', async () => {
    await h.files({ 'a.txt': 'x1\nx2\nx3\n', 'b.txt': 'x4\n' })
    const base = await root()
    const first = await h.fs.search(base, { pattern: 'x', mode: 'lines', limit: 2 })
    expect(first.more).toBe(true)
    expect(first.files.flatMap((file) => file.lines!.map((line) => line.text))).toEqual(['x1', 'x2'])
    const rest = await h.fs.search(base, { pattern: 'x', mode: 'lines', limit: 2, offset: 2 })
    expect(rest.more).toBe(false)
    expect(rest.files.flatMap((file) => file.lines!.map((line) => `${file.path}:${line.line}`))).toEqual(['a.txt:3', 'b.txt:1'])
    const names = await h.fs.search(base, { pattern: 'x', mode: 'files', limit: 1 })
    expect(names).toMatchObject({ files: [{ path: 'a.txt' }], more: true })
  })

  it('says whether ignored files match, if it says at all, as a search or walk of them would', async () => {
    await h.files({ '.gitignore': 'build/\n', 'build/out.js': 'hidden\n', 'a.ts': 'shown\n' })
    for (const pattern of ['hidden', 'absent']) {
      const result = await h.fs.search(await root(), { pattern, mode: 'files', limit: 10, reportIgnoredMatch: true })
      expect(result.files).toEqual([])
      const truth = (await h.fs.search(await root(), { pattern, mode: 'files', limit: 1, includeIgnored: true })).files.length > 0
      if (result.ignoredMatch !== undefined) expect(result.ignoredMatch).toBe(truth)
    }
    for (const glob of ['**/*.js', '**/*.py']) {
      const result = await h.fs.walk(await root(), { glob: [glob], limit: 10, reportIgnoredMatch: true })
      expect(result.total).toBe(0)
      const truth = (await h.fs.walk(await root(), { glob: [glob], limit: 1, includeIgnored: true })).total > 0
      if (result.ignoredMatch !== undefined) expect(result.ignoredMatch).toBe(truth)
    }
  })

  it('skips binary files in a search and counts them', async () => {
    await h.files({ 'bin.dat': Uint8Array.of(0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2), 'text.txt': 'needle\n' })
    const found = await h.fs.search(await root(), { pattern: 'needle', mode: 'files', limit: 10 })
    expect(found.files.map((file) => file.path)).toEqual(['text.txt'])
    expect(found.skipped.binary).toBe(1)
  })

  withSymlinks('never follows a symlink, so nothing outside the root is walked or searched', async () => {
    await h.external.write('inside/needle.txt', 'needle\n')
    await h.external.symlink!('..', 'up')
    await h.external.symlink!('.', 'inside/loop')
    const result = await h.fs.walk(await root(), all)
    expect(result.entries.map((entry) => [entry.path, entry.type])).toEqual([
      ['inside', 'directory'], ['inside/loop', 'symlink'], ['inside/needle.txt', 'file'], ['up', 'symlink'],
    ])
    const found = await h.fs.search(await root(), { pattern: 'needle', mode: 'files', limit: 10 })
    expect(found.files.map((file) => file.path)).toEqual(['inside/needle.txt'])
  })

  withSpecialFiles('walks and searches past a FIFO without blocking', async () => {
    await h.external.mkfifo!('pipe')
    await h.external.write('z.txt', 'needle\n')
    const walked = await within(10_000, h.fs.walk(await root(), all))
    expect(walked.entries.map((entry) => [entry.path, entry.type])).toEqual([['pipe', 'other'], ['z.txt', 'file']])
    const found = await within(10_000, h.fs.search(await root(), { pattern: 'needle', mode: 'files', limit: 10, includeIgnored: true }))
    expect(found.files.map((file) => file.path)).toEqual(['z.txt'])
  })

  it('editTextMany applies every edit in order and publishes once', async () => {
    await h.external.write('m.txt', '\uFEFFone\r\ntwo\r\nthree\r\n')
    const target = await h.target('m.txt')
    const version = await h.version('m.txt')
    const outcome = await h.fs.editTextMany(target, [
      { oldString: 'one', newString: 'ONE', replaceAll: false },
      { oldString: 'ONE\ntwo', newString: 'ONE\n2\n2b', replaceAll: false },
      { oldString: 'e', newString: 'E', replaceAll: true },
    ], { expected: { version } })
    expect(await h.disk('m.txt')).toBe('\uFEFFONE\r\n2\r\n2b\r\nthrEE\r\n')
    expect(outcome.replacements).toBe(4)
    expect(outcome.version).toBe(await h.version('m.txt'))
  })

  it('editTextMany writes nothing when one edit fails, and names it', async () => {
    await h.external.write('m.txt', 'a b a\n')
    const target = await h.target('m.txt')
    const version = await h.version('m.txt')
    const missing = await expectFsError(h.fs.editTextMany(target, [
      { oldString: 'b', newString: 'B', replaceAll: false },
      { oldString: 'zzz', newString: 'y', replaceAll: false },
    ], { expected: { version } }), 'FS_EDIT_NOT_FOUND')
    expect(editIndexOf(missing)).toBe(1)
    const ambiguous = await expectFsError(h.fs.editTextMany(target, [{ oldString: 'a', newString: 'A', replaceAll: false }]), 'FS_AMBIGUOUS_EDIT')
    expect(editIndexOf(ambiguous)).toBe(0)
    expect(await h.disk('m.txt')).toBe('a b a\n')
    expect(await h.version('m.txt')).toBe(version)
  })

  it('editTextMany checks the version before matching', async () => {
    await h.external.write('m.txt', 'old\n')
    const version = await h.version('m.txt')
    await h.external.write('m.txt', 'new text\n')
    await expectFsError(h.fs.editTextMany(await h.target('m.txt'), [{ oldString: 'absent', newString: 'x', replaceAll: false }], { expected: { version } }), 'FS_STALE_VERSION')
    expect(await h.disk('m.txt')).toBe('new text\n')
  })
}
