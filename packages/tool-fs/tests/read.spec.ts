import { execFileSync } from 'node:child_process'
import { mkdir, symlink } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

const numberedLines = (from: number, texts: string[]) => texts.map((text, i) => `${String(from + i).padStart(6)}\t${text}`).join('\n')

describe('read windows', () => {
  it('numbers lines like cat -n: the number right-aligned to width 6, a tab, the text', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'alpha\n\tindented\n\nlast')
    expect(await s.text('read', { file_path: 'a.txt' })).toBe('     1\talpha\n     2\t\tindented\n     3\t\n     4\tlast\n\n[End of file: 4 lines.]')
  })

  it('shows the window at offset and limit and says exactly where the next one starts', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'))
    expect(await s.text('read', { file_path: 'a.txt', offset: 4, limit: 3 })).toBe(
      `${numberedLines(4, ['line 4', 'line 5', 'line 6'])}\n\n[Showing lines 4-6 of 10; the file continues. To read more, call the dsh \`read\` tool with offset=7.]`,
    )
    expect(await s.text('read', { file_path: 'a.txt', offset: 9, limit: 3 })).toBe(`${numberedLines(9, ['line 9', 'line 10'])}\n\n[End of file: 10 lines.]`)
  })

  it('caps a window at readLimit lines even when the model asks for more', async () => {
    s = await stack({ policy: true, config: { readLimit: 2 } })
    await s.put('a.txt', 'a\nb\nc\n')
    expect(await s.text('read', { file_path: 'a.txt', limit: 50 })).toBe(
      `${numberedLines(1, ['a', 'b'])}\n\n[Showing lines 1-2 of 3; the file continues. To read more, call the dsh \`read\` tool with offset=3.]`,
    )
  })

  it('cuts long lines at readMaxLineLength without splitting a multibyte character and lists them', async () => {
    s = await stack({ policy: true, config: { readMaxLineLength: 5 } })
    await s.put('a.txt', 'abcd😀xyz\nshort\n日本語テキスト\n')
    expect(await s.text('read', { file_path: 'a.txt' })).toBe(
      `${numberedLines(1, ['abcd😀', 'short', '日本語テキ'])}\n\n[Lines 1, 3 are cut: a line is shown up to 5 characters (line 1 has 8 characters). `
        + 'To see more of line 1, call the dsh `read` tool with offset=1, limit=1, column=6.]\n[End of file: 3 lines.]',
    )
  })

  it('ends a window at the byte budget with the offset of the first line left out', async () => {
    s = await stack({ policy: true, config: { readMaxBytes: 40 } })
    // Each rendered line takes 7 (prefix) + 10 (five 2-byte characters) + 1 = 18 bytes: two fit in 40.
    await s.put('a.txt', 'ééééé\n'.repeat(3))
    expect(await s.text('read', { file_path: 'a.txt' })).toBe(
      `${numberedLines(1, ['ééééé', 'ééééé'])}\n\n[Showing lines 1-2 of 3: the output reached the 40 bytes limit. To read more, call the dsh \`read\` tool with offset=3.]`,
    )
  })

  it('shows CRLF lines without the carriage return', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'one\r\ntwo\r\n')
    expect(await s.text('read', { file_path: 'a.txt' })).toBe(`${numberedLines(1, ['one', 'two'])}\n\n[End of file: 2 lines.]`)
  })

  it('hides a UTF-8 BOM', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', '\ufeffhello\n')
    expect(await s.text('read', { file_path: 'a.txt' })).toBe(`${numberedLines(1, ['hello'])}\n\n[End of file: 1 line.]`)
  })

  it('says an empty file is empty and that an offset past the end is past the end', async () => {
    s = await stack({ policy: true })
    await s.put('empty.txt', '')
    await s.put('a.txt', 'a\nb\n')
    expect(await s.call('read', { file_path: 'empty.txt' })).toMatchObject({ isError: false, content: [{ text: `${s.path('empty.txt')} is empty (0 lines).` }] })
    expect(await s.text('read', { file_path: 'a.txt', offset: 3 })).toBe(
      `${s.path('a.txt')} has 2 lines; offset=3 is past the end of the file. Call the dsh \`read\` tool with an offset from 1 to 2.`,
    )
  })
})

describe('where the model is', () => {
  it('gives the total line count of a small file on every window, and marks the end', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'a\nb\nc\n')
    expect(await s.text('read', { file_path: 'a.txt', limit: 1 })).toBe(
      `${numberedLines(1, ['a'])}\n\n[Showing lines 1-1 of 3; the file continues. To read more, call the dsh \`read\` tool with offset=2.]`)
    expect(await s.text('read', { file_path: 'a.txt', offset: 3 })).toBe(`${numberedLines(3, ['c'])}\n\n[End of file: 3 lines.]`)
  })

  it('shows the rest of a cut line from the column the cut note names, so every character is reachable', async () => {
    s = await stack({ policy: true, config: { readMaxLineLength: 2000 } })
    const long = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')
    await s.put('a.txt', `${long}\nshort\n`)
    const first = await s.text('read', { file_path: 'a.txt' })
    expect(first).toContain('To see more of line 1, call the dsh `read` tool with offset=1, limit=1, column=2001.]')
    let seen = ''
    let column = 1
    for (let calls = 0; calls < 5; calls++) {
      const text = await s.text('read', { file_path: 'a.txt', offset: 1, limit: 1, column })
      seen += /^ {5}1\t(.*)$/m.exec(text)![1]
      const next = /column=(\d+)\.\]/.exec(text)
      if (next === null) break
      column = Number(next[1])
    }
    expect(seen).toBe(long)
  })

  it('keeps whole characters when it starts a line at a column', async () => {
    s = await stack({ policy: true, config: { readMaxLineLength: 2 } })
    await s.put('a.txt', '😀é日x\n')
    expect(await s.text('read', { file_path: 'a.txt', column: 2, limit: 1 })).toContain('     1\té日\n')
  })

  it('says how long a line is when the column lies past its end', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'abc\n')
    expect(await s.text('read', { file_path: 'a.txt', column: 10 })).toBe(
      `Line 1 of ${s.path('a.txt')} has 3 characters; column=10 is past its end. To see the line from its start, call the dsh \`read\` tool with offset=1 and no column.`)
  })
})

describe('read failures', () => {
  it('fails FS_NOT_FOUND for a missing file and suggests write to create it', async () => {
    s = await stack({ policy: true })
    expect(await s.call('read', { file_path: 'nope.txt' })).toMatchObject({
      isError: true,
      error: { code: 'FS_NOT_FOUND' },
      content: [{ text: `${s.path('nope.txt')} does not exist; check the path, or create the file with the dsh \`write\` tool` }],
    })
  })

  it('lists a directory, one level, without recording it as read', async () => {
    s = await stack({ policy: true })
    await mkdir(s.path('d'))
    await mkdir(s.path('d/sub'))
    await s.put('d/a.txt', 'a\n')
    const result = await s.call('read', { file_path: 'd' })
    expect(result.isError).toBe(false)
    expect(result.content[0]!.text).toBe(`${s.path('d')} is a directory, not a file. It holds 2 entries:\na.txt\nsub/\n\n`
      + '[To see a file, call the dsh `read` tool with its path.]')
    expect(s.log.calls).toEqual(['resolve', 'stat', 'listDir'])
  })

  it('names a broken symbolic link as such', async () => {
    s = await stack({ policy: true })
    await symlink('nowhere.txt', s.path('link'))
    const result = await s.call('read', { file_path: 'link' })
    expect(result.error?.code).toBe('FS_NOT_REGULAR_FILE')
    expect(result.content[0]!.text).toContain('is a broken symbolic link')
  })

  it('refuses a FIFO with FS_NOT_REGULAR_FILE without opening it', async () => {
    s = await stack({ policy: true })
    execFileSync('mkfifo', [s.path('pipe')])
    // A blocking open of a FIFO with no writer would hang this test until its timeout.
    const result = await s.call('read', { file_path: 'pipe' })
    expect(result.error?.code).toBe('FS_NOT_REGULAR_FILE')
    expect(result.content[0]!.text).toContain('is a FIFO (named pipe)')
    expect(s.log.calls).toEqual(['resolve', 'stat'])
  })

  it('fails FS_NOT_TEXT for a binary file', async () => {
    s = await stack({ policy: true })
    await s.put('bin', Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 0, 1, 2))
    expect((await s.call('read', { file_path: 'bin' })).error?.code).toBe('FS_NOT_TEXT')
  })
})

describe('read cost on large files', () => {
  it('streams a large file and stops at the window, closing the stream', async () => {
    s = await stack({ policy: true })
    const line = `${'x'.repeat(99)}\n`
    await s.put('big.txt', line.repeat(200_000)) // 20 MB
    const text = await s.text('read', { file_path: 'big.txt', limit: 3 })
    expect(text.endsWith('[Showing lines 1-3; the file continues. To read more, call the dsh `read` tool with offset=4.]')).toBe(true)
    expect(s.log.calls).toEqual(['resolve', 'stat', 'streamBytesFrom'])
    expect(s.log.chunks).toBe(1)
    expect(s.log.closedEarly).toBe(1)
  })

  it('reads a window in the middle of a large file by scanning only up to it', async () => {
    s = await stack({ policy: true })
    const lines = Array.from({ length: 50_000 }, (_, i) => `row ${i + 1} ${'y'.repeat(90)}`)
    await s.put('big.txt', `${lines.join('\n')}\n`)
    const text = await s.text('read', { file_path: 'big.txt', offset: 1000, limit: 2 })
    expect(text).toBe(`${numberedLines(1000, [lines[999]!, lines[1000]!])}\n\n[Showing lines 1000-1001; the file continues. To read more, call the dsh \`read\` tool with offset=1002.]`)
    // ~100 KB of a 5 MB file: the first two chunks (64 and 128 KiB), not a scan of the file.
    expect(s.log.chunks).toBeLessThanOrEqual(3)
    expect(s.log.closedEarly).toBe(1)
  })

  it('keeps a multibyte character whole across the provider chunk boundary of a streamed file', async () => {
    s = await stack({ policy: true, config: { readStreamThreshold: 0, readMaxLineLength: 300_000, readMaxBytes: 1024 * 1024 } })
    // 65535 ASCII bytes then a 3-byte character: the provider's first 64 KiB chunk ends inside it.
    await s.put('a.txt', `${'a'.repeat(65_535)}€tail\nnext\n`)
    const text = await s.text('read', { file_path: 'a.txt', offset: 2 })
    expect(text).toBe(`${numberedLines(2, ['next'])}\n\n[End of file: 2 lines.]`)
    expect(await s.text('read', { file_path: 'a.txt', limit: 1 })).toBe(
      `${numberedLines(1, [`${'a'.repeat(65_535)}€tail`])}\n\n[Showing lines 1-1; the file continues. To read more, call the dsh \`read\` tool with offset=2.]`,
    )
    expect(s.log.calls.filter((call) => call === 'streamBytesFrom')).toHaveLength(2)
  })
})

describe('positions from the end', () => {
  it('reads a negative offset from the end, and says so', async () => {
    s = await stack({ policy: true })
    await s.put('a.txt', 'a\nb\nc\nd\n')
    expect(await s.text('read', { file_path: 'a.txt', offset: -2 })).toBe(
      `${numberedLines(3, ['c', 'd'])}\n\n[offset=-2 counts from the end: the file has 4 lines, so this starts at line 3.]\n[End of file: 4 lines.]`)
  })

  it('counts the lines of a file too large to hold, and starts from its last one', async () => {
    s = await stack({ policy: true, config: { readStreamThreshold: 16 } })
    await s.put('big.txt', Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join('\n'))
    expect(await s.text('read', { file_path: 'big.txt', offset: -1 })).toContain('    50\trow 50\n\n[offset=-1 counts from the end: the file has 50 lines')
  })
})
