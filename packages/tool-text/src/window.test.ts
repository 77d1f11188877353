import { describe, expect, it } from 'vitest'
import { skipLines } from './paging'
import { buildWindow, cutCodePoints, cutUtf8, renderedLineBytes, type WindowOptions } from './window'

const defaults: WindowOptions = { offset: 1, limit: 2000, maxLineLength: 2000, maxBytes: 50 * 1024 }
const texts = (window: Awaited<ReturnType<typeof buildWindow>>) => window.lines.map((line) => line.text)

/** A stream that records how far it was consumed and whether the consumer closed it. */
function tracked(chunks: string[]) {
  const state = { pulled: 0, closed: false }
  async function* stream() {
    try {
      for (const chunk of chunks) {
        state.pulled++
        yield chunk
      }
    } finally {
      state.closed = true
    }
  }
  return { state, stream: stream() }
}

describe('buildWindow', () => {
  it('splits lines the same way whatever the chunk boundaries', async () => {
    const text = 'one\r\ntwo\nthree\r\n\nfive'
    const whole = await buildWindow([text], defaults)
    for (let cut = 0; cut <= text.length; cut++) {
      const split = await buildWindow([text.slice(0, cut), text.slice(cut)], defaults)
      expect(split).toEqual(whole)
    }
    expect(texts(whole)).toEqual(['one', 'two', 'three', '', 'five'])
    expect(whole).toMatchObject({ end: 'eof', totalLines: 5 })
  })

  it('does not count a final line feed as the start of another line', async () => {
    expect((await buildWindow(['a\nb\n'], defaults)).totalLines).toBe(2)
    expect((await buildWindow(['a\nb'], defaults)).totalLines).toBe(2)
    expect((await buildWindow([''], defaults)).totalLines).toBe(0)
    expect((await buildWindow(['\n'], defaults)).totalLines).toBe(1)
  })

  it('keeps a lone carriage return that does not end a line', async () => {
    expect(texts(await buildWindow(['a\rb\r\n'], defaults))).toEqual(['a\rb'])
  })

  it('stops reading once the window is full and one more character proves the file goes on', async () => {
    const { state, stream } = tracked(['1\n2\n', '3\n', '4\n', '5\n'])
    const window = await buildWindow(stream, { ...defaults, limit: 2 })
    expect(window).toMatchObject({ end: 'limit', nextOffset: 3 })
    expect(state).toEqual({ pulled: 2, closed: true })
  })

  it('reports the end of the file when the window ends exactly there', async () => {
    expect(await buildWindow(['1\n2\n'], { ...defaults, limit: 2 })).toMatchObject({ end: 'eof', totalLines: 2 })
  })

  it('starts at the offset and numbers lines from the file start', async () => {
    const window = await buildWindow(['a\nb\nc\nd\n'], { ...defaults, offset: 2, limit: 2 })
    expect(window.lines).toEqual([{ number: 2, text: 'b', cut: false }, { number: 3, text: 'c', cut: false }])
    expect(window.nextOffset).toBe(4)
  })

  it('scans a huge line without keeping it, cuts it at a character boundary and counts its characters', async () => {
    const line = '😀'.repeat(10)
    const window = await buildWindow([line.slice(0, 5), line.slice(5), 'x'.repeat(100_000), '\nnext'], { ...defaults, maxLineLength: 3 })
    expect(window.lines).toEqual([{ number: 1, text: '😀😀😀', cut: true, length: 100_010 }, { number: 2, text: 'nex', cut: true, length: 4 }])
  })

  it('counts a cut line from its first character when it is shown from a column', async () => {
    const window = await buildWindow(['0123456789\n'], { ...defaults, maxLineLength: 3, column: 4 })
    expect(window.lines).toEqual([{ number: 1, text: '345', cut: true, column: 4, length: 10 }])
  })

  it('cuts a line at its length cap even when its carriage return would fit', async () => {
    expect((await buildWindow(['abcd\r\nab\r\n'], { ...defaults, maxLineLength: 3 })).lines).toEqual([
      { number: 1, text: 'abc', cut: true, length: 4 },
      { number: 2, text: 'ab', cut: false },
    ])
  })

  it('ends the window before the line that would pass the byte budget and points at it', async () => {
    const budget = renderedLineBytes(1, 'aaaa') + renderedLineBytes(2, 'ééé')
    const window = await buildWindow(['aaaa\nééé\nb\n'], { ...defaults, maxBytes: budget + 1 })
    expect(window).toEqual({ lines: [{ number: 1, text: 'aaaa', cut: false }, { number: 2, text: 'ééé', cut: false }], end: 'bytes', nextOffset: 3 })
  })

  it('shows a first line that alone passes the budget cut to fit, without splitting a character', async () => {
    const prefix = 7
    const window = await buildWindow(['éééé\nx\n'], { ...defaults, maxBytes: prefix + 5 + 1 })
    expect(window).toEqual({ lines: [{ number: 1, text: 'éé', cut: true, length: 4 }], end: 'bytes', nextOffset: 2 })
  })

  it('reports an offset past the end with the number of lines', async () => {
    expect(await buildWindow(['a\nb\n'], { ...defaults, offset: 5 })).toEqual({ lines: [], end: 'eof', totalLines: 2 })
  })
})

describe('cuts', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(cutCodePoints('😀😀', 2)).toBeUndefined()
    expect(cutCodePoints('😀😀😀', 2)).toBe('😀😀')
    expect(cutCodePoints('abc', 3)).toBeUndefined()
  })

  it('keeps whole UTF-8 sequences under a byte budget', () => {
    expect(cutUtf8('a€b', 3)).toBe('a')
    expect(cutUtf8('a€b', 4)).toBe('a€')
    expect(cutUtf8('😀', 1)).toBe('😀')
  })
})

describe('skipLines', () => {
  const bytesOf = (text: string, size: number) => {
    const all = new TextEncoder().encode(text)
    let closed = false
    async function* stream() {
      try {
        for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size)
      } finally {
        closed = true
      }
    }
    return { stream: stream(), closed: () => closed }
  }
  const options = { limit: 2, maxLineLength: 100, maxBytes: 10_000 }

  it('gives the same window as decoding everything, whatever the chunking', async () => {
    const text = 'é1\n中2\n🎉3\nfour\nfive'
    for (let size = 1; size <= 8; size++) {
      for (const offset of [1, 2, 4, 5, 6, 9]) {
        const source = await skipLines(bytesOf(text, size).stream, offset, 'f')
        const skipped = await buildWindow(source.chunks, { ...options, offset, firstLine: source.firstLine })
        expect(skipped).toEqual(await buildWindow([text], { ...options, offset }))
      }
    }
  })

  it('counts the lines of a file that ends before the offset, with or without a final newline', async () => {
    for (const [text, total] of [['a\nb\n', 2], ['a\nb', 2], ['', 0]] as const) {
      const source = await skipLines(bytesOf(text, 1).stream, 10, 'f')
      expect(await buildWindow(source.chunks, { ...options, offset: 10, firstLine: source.firstLine })).toMatchObject({ lines: [], end: 'eof', totalLines: total })
    }
  })

  it('rejects invalid UTF-8 among the skipped lines and closes the stream', async () => {
    const bytes = Uint8Array.of(0x61, 0xff, 0x0a, 0x62, 0x0a)
    let closed = false
    async function* stream() {
      try { yield bytes } finally { closed = true }
    }
    await expect(skipLines(stream(), 2, 'f')).rejects.toMatchObject({ code: 'FS_NOT_TEXT' })
    expect(closed).toBe(true)
  })
})
