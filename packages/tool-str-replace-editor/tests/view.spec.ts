import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { execFile } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { editorFixture, type EditorFixture, textOf } from './fixture'

let f: EditorFixture
let observed: [string, FsObservation][]

beforeEach(async () => {
  f = await editorFixture()
  observed = []
  f.ctx.on('fs/observed', (target, observation) => void observed.push([target.displayPath, observation]))
})
afterEach(() => f.dispose())

describe('view of a file', () => {
  it('numbers every line like cat -n and records the file present at its stat version', async () => {
    await f.put('a.txt', 'one\r\ntwo\nthree')
    const text = await f.ok({ command: 'view', path: 'a.txt' })
    expect(text).toBe(`Here's the result of running \`cat -n\` on ${f.at('a.txt')}:\n     1\tone\n     2\ttwo\n     3\tthree\n`)
    const info = await f.fs.stat(await f.fs.resolve(f.at('a.txt')))
    expect(observed).toEqual([[f.at('a.txt'), { kind: 'present', version: info!.version, seen: { ranges: [[1, 3]], total: 3 } }]])
    expect(f.log.count('stat')).toBe(2)
  })

  it('takes one stat and no whole-file read', async () => {
    await f.put('a.txt', 'x\n')
    f.log.reset()
    await f.ok({ command: 'view', path: 'a.txt' })
    expect([f.log.count('stat'), f.log.count('readText')]).toEqual([1, 0])
  })

  it('reads only as far as the window reaches in a large file', async () => {
    await f.put('big.txt', 'x'.repeat(99) + '\n'.repeat(1) + `${'y'.repeat(99)}\n`.repeat(100_000))
    await f.ok({ command: 'view', path: 'big.txt', view_range: [1, 3] })
    // 10 MB in 256 KiB chunks: the window is in the first one.
    expect(f.log.chunks).toBeLessThanOrEqual(2)
    expect(f.log.count('readText')).toBe(0)
  })

  it('shows a range deep in a large file, skipping the lines before it', async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `row ${i + 1} é中🎉 ${'z'.repeat(60)}`)
    await f.put('deep.txt', `${lines.join('\n')}\n`)
    const text = await f.ok({ command: 'view', path: 'deep.txt', view_range: [30_000, 30_001] })
    expect(text).toContain(`${String(30_000).padStart(6)}\t${lines[29_999]}\n${String(30_001).padStart(6)}\t${lines[30_000]}`)
    expect(text).not.toContain(lines[29_998]!)
  })

  it('shows a view_range, with -1 meaning to the end of the file', async () => {
    await f.put('a.txt', 'l1\nl2\nl3\nl4\nl5\n')
    expect(await f.ok({ command: 'view', path: 'a.txt', view_range: [2, 3] })).toContain('     2\tl2\n     3\tl3\n')
    expect(await f.ok({ command: 'view', path: 'a.txt', view_range: [4, -1] })).toMatch(/\n {5}4\tl4\n {5}5\tl5\n$/)
    expect(await f.ok({ command: 'view', path: 'a.txt', view_range: [5, 5] })).not.toContain('\tl4')
  })

  it('refuses a view_range that is not two integers, starts outside the file, ends past it or before its start', async () => {
    await f.put('a.txt', 'l1\nl2\nl3\n')
    const cases: [unknown, string][] = [
      [[1], 'Invalid `view_range` parameter. It should be a list of two integers.'],
      [[4, 4], 'Invalid `view_range` parameter: [4, 4]. Its first element `4` should be within the range of lines of the file: [1, 3]'],
      [[0, 2], 'Invalid `view_range` parameter: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 3]'],
      [[2, 9], 'Invalid `view_range` parameter: [2, 9]. Its second element `9` should be at most the number of lines in the file: `3`'],
      [[3, 2], 'Invalid `view_range` parameter: [3, 2]. Its second element `2` should be larger or equal than its first `3`'],
    ]
    for (const [range, message] of cases) {
      const result = await f.call({ command: 'view', path: 'a.txt', view_range: range })
      expect(result.error).toEqual({ code: 'INVALID_ARGUMENTS', message })
    }
    // A refused range showed the model nothing: it is not an observation.
    expect(observed).toEqual([])
  })

  it('counts a negative view_range from the end of the file, as -1 already counts its end', async () => {
    await f.put('a.txt', 'l1\nl2\nl3\nl4\n')
    const tail = await f.ok({ command: 'view', path: 'a.txt', view_range: [-2, -1] })
    expect(tail).toContain('     3\tl3\n     4\tl4\n[view_range [-2, -1] counts back from the end: the file has 4 lines, so this shows from line 3.]')
    expect(tail).not.toContain('l2')
    expect(await f.ok({ command: 'view', path: 'a.txt', view_range: [-9, -3] })).toMatch(/ {5}1\tl1\n {5}2\tl2\n\[view_range/)
  })

  it('cuts a long window with the exact view_range that continues it', async () => {
    const small = await editorFixture({ config: { viewLimit: 3 } })
    try {
      await small.put('a.txt', 'a\nb\nc\nd\ne\n')
      const text = await small.ok({ command: 'view', path: 'a.txt' })
      expect(text).toContain('     3\tc\n[Output cut at 3 lines. To see more, view again with view_range [4, -1].]')
      expect(text).not.toContain('\td')
      const ranged = await small.ok({ command: 'view', path: 'a.txt', view_range: [2, 5] })
      expect(ranged).toContain('view_range [5, 5]')
    } finally {
      await small.dispose()
    }
  })

  it('cuts a long line and flags it', async () => {
    const small = await editorFixture({ config: { viewMaxLineLength: 5 } })
    try {
      await small.put('a.txt', 'short\n0123456789\n')
      const text = await small.ok({ command: 'view', path: 'a.txt' })
      expect(text).toContain('     2\t01234\n[Line 2 is cut: a line is shown up to 5 characters (line 2 has 10 characters). To see all of line 2, view again with view_range [2, 2].]')
    } finally {
      await small.dispose()
    }
  })

  it('shows a line whole when the view_range is that one line, up to the byte budget', async () => {
    const small = await editorFixture({ config: { viewMaxLineLength: 5, viewMaxBytes: 20 } })
    try {
      await small.put('a.txt', 'short\n0123456789\n0123456789abcdefghij\n')
      expect(await small.ok({ command: 'view', path: 'a.txt', view_range: [2, 2] })).toContain('     2\t0123456789\n')
      // Longer than the byte budget: cut there, the count shown exact (12, not the 20 of the budget),
      // and no hint that would send the model back to this same view.
      const cut = await small.ok({ command: 'view', path: 'a.txt', view_range: [3, 3] })
      expect(cut).toContain('     3\t0123456789ab\n[Line 3 is cut: its first 12 of 20 characters are shown, all that one view holds.]')
      expect(cut).not.toContain('view again')
    } finally {
      await small.dispose()
    }
  })

  it('records a missing file as absent before failing FS_NOT_FOUND with the create remedy', async () => {
    const result = await f.call({ command: 'view', path: 'gone.txt' })
    expect(result.error?.code).toBe('FS_NOT_FOUND')
    expect(textOf(result)).toBe(`The path ${f.at('gone.txt')} does not exist. Please provide a valid path. To make a new file there, use the \`create\` command.`)
    expect(observed).toEqual([[f.at('gone.txt'), { kind: 'absent' }]])
  })

  it('records absent when the file vanishes between the stat and the read, so create recovers', async () => {
    await f.put('a.txt', 'x\n')
    f.log.afterNextStat(() => rm(f.at('a.txt')))
    expect((await f.call({ command: 'view', path: 'a.txt' })).error?.code).toBe('FS_NOT_FOUND')
    expect(observed).toEqual([[f.at('a.txt'), { kind: 'absent' }]])
    await f.ok({ command: 'create', path: 'a.txt', file_text: 'again\n' })
  })

  it('refuses a special file with FS_NOT_REGULAR_FILE without opening it', async () => {
    await promisify(execFile)('mkfifo', [f.at('pipe')])
    const result = await f.call({ command: 'view', path: 'pipe' })
    expect(result.error?.code).toBe('FS_NOT_REGULAR_FILE')
    expect(observed).toEqual([])
  })
})

describe('view of a directory', () => {
  it('lists two levels, children after their parent, hidden entries skipped and not entered', async () => {
    await mkdir(f.at('src/deep/deeper'), { recursive: true })
    await mkdir(f.at('.git'), { recursive: true })
    await writeFile(f.at('.git/HEAD'), 'ref')
    await writeFile(f.at('.env'), 'secret')
    await writeFile(f.at('README.md'), '#')
    await writeFile(f.at('src/index.ts'), '')
    await writeFile(f.at('src/.hidden'), '')
    await writeFile(f.at('src/deep/three.ts'), '')
    const text = await f.ok({ command: 'view', path: '.' })
    expect(text).toBe([
      `Here's the files and directories up to 2 levels deep in ${f.dir}, excluding hidden items:`,
      f.dir,
      f.at('README.md'),
      f.at('src'),
      f.at('src/deep'),
      f.at('src/index.ts'),
      '',
    ].join('\n'))
    expect(observed).toEqual([])
  })

  it('shows a name with a line feed or other control characters quoted and escaped, on one line', async () => {
    await writeFile(f.at('plain.txt'), '')
    await writeFile(f.at('evil\n/etc/passwd'.replace('/etc/', '')), '')
    await mkdir(f.at('tab\tdir\u202e'))
    await writeFile(f.at('tab\tdir\u202e/in\rside'), '')
    const text = await f.ok({ command: 'view', path: '.' })
    expect(text).toBe([
      `Here's the files and directories up to 2 levels deep in ${f.dir}, excluding hidden items:`,
      f.dir,
      `"${f.at('evil\\npasswd')}"`,
      f.at('plain.txt'),
      `"${f.at('tab\\tdir\\u202e')}"`,
      `"${f.at('tab\\tdir\\u202e/in\\rside')}"`,
      '[Paths with control characters are shown in double quotes, escaped as in JSON.]',
      '',
    ].join('\n'))
    // Every line is a path that exists: nothing the names hold became a line of its own.
    expect(text.split('\n').filter((line) => line.startsWith(f.dir))).toEqual([f.dir, f.at('plain.txt')])
  })

  it('counts what a cut listing leaves out, including a cut subdirectory', async () => {
    const small = await editorFixture({ config: { listLimit: 3 } })
    try {
      await mkdir(small.at('a'))
      await small.put('a/1', '')
      await small.put('a/2', '')
      await small.put('a/3', '')
      await small.put('b', '')
      const text = await small.ok({ command: 'view', path: '.' })
      expect(text).toBe(`Here's the files and directories up to 2 levels deep in ${small.dir}, excluding hidden items:\n`
        + `${[small.dir, small.at('a'), small.at('a/1'), small.at('a/2')].join('\n')}\n`
        + '[Listing cut at 3 entries; at least 2 more not shown. View a subdirectory to see more.]\n')
    } finally {
      await small.dispose()
    }
  })

  it('refuses a view_range on a directory', async () => {
    const result = await f.call({ command: 'view', path: f.dir, view_range: [1, 2] })
    expect(result.error).toEqual({ code: 'INVALID_ARGUMENTS', message: 'The `view_range` parameter is not allowed when `path` points to a directory.' })
  })

  it('stops a long listing at the configured number of entries and says so', async () => {
    const small = await editorFixture({ config: { listLimit: 2 } })
    try {
      for (const name of ['a', 'b', 'c']) await small.put(name, '')
      const text = await small.ok({ command: 'view', path: '.' })
      expect(text).toBe(`Here's the files and directories up to 2 levels deep in ${small.dir}, excluding hidden items:\n`
        + `${small.dir}\n${small.at('a')}\n${small.at('b')}\n[Listing cut at 2 entries; at least 1 more not shown. View a subdirectory to see more.]\n`)
    } finally {
      await small.dispose()
    }
  })
})
