import { Utf8StreamDecoder } from '@deepseek-ai/dsh-fs/kit'

/** Limits of one read window. `offset` is the 1-based number of the first line shown. */
export interface WindowOptions {
  offset: number
  /** The number of the stream's first line, when the stream starts past the file's beginning. Default 1. */
  firstLine?: number
  limit: number
  maxLineLength: number
  maxBytes: number
  /** The 1-based character of line `offset` to start from, to see the rest of a cut line. Default 1. */
  column?: number
}

export interface WindowLine {
  number: number
  text: string
  /** The line was longer than `maxLineLength` characters (or the byte budget) and is shown cut. */
  cut: boolean
  /** The 1-based character of the line that `text` starts at, when it is not the first. */
  column?: number
  /** For a cut line: how many characters the whole line has (its line ending not counted). */
  length?: number
}

export interface ReadWindow {
  lines: WindowLine[]
  /** Why the window ended: the end of the file, the line limit, or the byte budget. */
  end: 'eof' | 'limit' | 'bytes'
  /** How many lines the file has; known only when the window reached the end of the file. */
  totalLines?: number
  /** Where the next window starts, when the file goes on after this one. */
  nextOffset?: number
  /** Set when `column` lies past the end of line `offset`: that line's length in characters. */
  lineLength?: number
}

/** The bytes a line takes in the rendered output: `cat -n` prefix, text, line feed. */
export function renderedLineBytes(number: number, text: string): number {
  return linePrefix(number).length + Buffer.byteLength(text, 'utf8') + 1
}

/** `cat -n` numbering: the line number right-aligned to width 6, then a tab. */
export function linePrefix(number: number): string {
  return `${String(number).padStart(6)}\t`
}

/**
 * Cuts a window of lines out of a text stream. It stops consuming the stream as soon as it knows
 * how the window ends, so the cost follows the window and not the file size: lines before the
 * offset are counted without being kept, and a line longer than the cap is scanned but not stored.
 * Breaking out of the `for await` closes the provider's stream (and its file handle).
 *
 * Lines end at LF; a CR before it is not shown. A final line without a line feed still counts.
 * Cuts never split a character: lengths are in code points, budgets in whole UTF-8 sequences.
 */
export async function buildWindow(chunks: AsyncIterable<string> | Iterable<string>, options: WindowOptions): Promise<ReadWindow> {
  const builder = new WindowBuilder(options)
  for await (const chunk of chunks) {
    const result = builder.consume(chunk)
    if (result !== undefined) return result
  }
  return builder.finish()
}

/** The state of one window as its text streams by: the line being read, and the lines kept so far. */
class WindowBuilder {
  readonly offset: number
  readonly column: number
  // Characters of line `offset` still to pass over before the window keeps any.
  toSkip: number
  // Enough UTF-16 units for maxLineLength code points plus a trailing CR, whatever the characters.
  readonly keepUnits: number
  readonly lines: WindowLine[] = []
  bytes = 0
  number: number
  buffer = ''
  overflow = false
  started = false
  // The UTF-16 units of the current line after the skipped columns, and the surrogate pairs among
  // those not kept in `buffer`.
  lineUnits = 0
  linePairs = 0
  lastUnit = -1

  constructor(readonly options: WindowOptions) {
    this.offset = options.offset
    this.column = options.column ?? 1
    this.toSkip = this.column - 1
    this.keepUnits = options.maxLineLength * 2 + 2
    this.number = options.firstLine ?? 1
  }

  /** Takes in one chunk; returns the finished window when the chunk ends it. */
  consume(chunk: string): ReadWindow | undefined {
    let position = 0
    while (position < chunk.length) {
      // The window is full and there is more text: the next line exists.
      if (this.lines.length === this.options.limit) return { lines: this.lines, end: 'limit', nextOffset: this.number }
      const newline = chunk.indexOf('\n', position)
      const stop = newline < 0 ? chunk.length : newline
      this.started = true
      if (this.number === this.offset && this.toSkip > 0) {
        position = this.skipCodePoints(chunk, position, stop)
        if (this.toSkip > 0 && newline < 0) return undefined
      }
      if (this.number >= this.offset) this.keep(chunk, position, stop)
      if (newline < 0) return undefined
      position = newline + 1
      const result = this.completeLine()
      if (result !== undefined) return result
    }
    return undefined
  }

  /** The text ended: a final line without a line feed still counts. */
  finish(): ReadWindow {
    const ended = this.started ? this.completeLine() : undefined
    return ended ?? { lines: this.lines, end: 'eof', totalLines: this.number - 1 }
  }

  /** Passes over up to `toSkip` characters of line `offset` in `chunk[from, stop)`; returns where it stopped. */
  skipCodePoints(chunk: string, from: number, stop: number): number {
    let at = from
    while (this.toSkip > 0 && at < stop) {
      const code = chunk.charCodeAt(at)
      at += code >= 0xd800 && code <= 0xdbff && at + 1 < stop ? 2 : 1
      this.toSkip--
    }
    return at
  }

  /**
   * Counts `chunk[position, stop)` into the line, and keeps as much of it as a line may show. Only
   * a cut line needs its length in characters: surrogate pairs are counted here for the part not
   * kept, and for the kept part when the line turns out cut (`keepLine`).
   */
  keep(chunk: string, position: number, stop: number): void {
    if (stop > position) {
      this.lineUnits += stop - position
      this.lastUnit = chunk.charCodeAt(stop - 1)
    }
    const kept = this.overflow ? 0 : Math.min(this.keepUnits - this.buffer.length, stop - position)
    if (kept < stop - position) {
      this.overflow = true
      this.linePairs += surrogatePairs(chunk, position + kept, stop)
    }
    if (kept > 0) this.buffer += chunk.slice(position, position + kept)
  }

  /** Called at the end of line `number`; returns the finished window when this line ends it. */
  completeLine(): ReadWindow | undefined {
    const { number, offset, column } = this
    if (number === offset && this.toSkip > 0) {
      // The line ends before the column: nothing of it is shown, and the window says how long it is.
      return { lines: this.lines, end: 'eof', lineLength: column - 1 - this.toSkip }
    }
    if (number >= offset) {
      const ended = this.keepLine()
      if (ended !== undefined) return ended
    }
    this.number++
    this.buffer = ''
    this.overflow = false
    this.started = false
    this.lineUnits = 0
    this.linePairs = 0
    this.lastUnit = -1
    return undefined
  }

  /** Line `number` as shown: cut to the line length, and within the byte budget (or the window ends before it). */
  keepLine(): ReadWindow | undefined {
    const { number, offset, column, options: { maxLineLength, maxBytes } } = this
    let text = this.overflow ? this.buffer : this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer
    const capped = cutCodePoints(text, maxLineLength)
    let cut = this.overflow || capped !== undefined
    if (capped !== undefined) text = capped
    let size = renderedLineBytes(number, text)
    if (this.bytes + size > maxBytes) {
      if (this.lines.length > 0) return { lines: this.lines, end: 'bytes', nextOffset: number }
      // A first line that alone exceeds the budget is shown cut, so every window makes progress.
      text = cutUtf8(text, Math.max(1, maxBytes - linePrefix(number).length - 1))
      cut = true
      size = renderedLineBytes(number, text)
    }
    const line: WindowLine = number === offset && column > 1 ? { number, text, cut, column } : { number, text, cut }
    if (cut) {
      const pairs = this.linePairs + surrogatePairs(this.buffer, 0, this.buffer.length)
      line.length = (number === offset ? column - 1 : 0) + this.lineUnits - pairs - (this.lastUnit === 13 ? 1 : 0)
    }
    this.lines.push(line)
    this.bytes += size
    return undefined
  }
}

/** The first `max` code points of `text`, or `undefined` when it is not longer than that. */
export function cutCodePoints(text: string, max: number): string | undefined {
  if (text.length <= max) return undefined
  let units = 0
  for (let count = 0; count < max && units < text.length; count++) units += isHighSurrogate(text, units) ? 2 : 1
  return units < text.length ? text.slice(0, units) : undefined
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes` (at least one character). */
export function cutUtf8(text: string, maxBytes: number): string {
  let units = 0
  let bytes = 0
  while (units < text.length) {
    const code = text.codePointAt(units)!
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    if (bytes + size > maxBytes && units > 0) break
    bytes += size
    units += code >= 0x10000 ? 2 : 1
  }
  return text.slice(0, units)
}

/** How many high surrogates (each the first half of one character) lie in `text[from, to)`. */
function surrogatePairs(text: string, from: number, to: number): number {
  let pairs = 0
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) pairs++
  }
  return pairs
}

function isHighSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index)
  return code >= 0xd800 && code <= 0xdbff && index + 1 < text.length
}

/** How much of a provider chunk is decoded at a time once the window has started. */
const DECODE_SLICE = 16 * 1024

/** Text from line `firstLine` on. */
export interface SkippedSource {
  /** `from`, or the file's last line when the file ends before `from`. */
  firstLine: number
  chunks: AsyncIterable<string> | Iterable<string>
}

/**
 * The text of `first` and then of the rest of `iterator`, decoded in slices so that a window that
 * fills early costs a slice, not a whole provider chunk. Closes the provider's stream when the
 * consumer stops (`buildWindow` stops once the window is full).
 */
export async function* decodeRest(decoder: Utf8StreamDecoder, first: Uint8Array, iterator: AsyncIterator<Uint8Array>): AsyncIterable<string> {
  function* decoded(bytes: Uint8Array): Iterable<string> {
    for (let at = 0; at < bytes.length; at += DECODE_SLICE) {
      const text = decoder.push(bytes.subarray(at, at + DECODE_SLICE))
      if (text) yield text
    }
  }
  try {
    yield* decoded(first)
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield* decoded(next.value)
    const tail = decoder.end()
    if (tail) yield tail
  } finally {
    await iterator.return?.()
  }
}
