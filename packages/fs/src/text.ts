import { isUtf8 } from 'node:buffer'
import { FsError } from './errors'

export const UTF8_BOM = Uint8Array.of(0xef, 0xbb, 0xbf)

/** How far into a file a NUL byte marks it as binary. */
export const BINARY_SNIFF_BYTES = 8192

export interface DecodedText {
  /** The text without its BOM. */
  text: string
  bom: boolean
}

export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
}

function notText(reason: string, path: string | undefined, cause?: unknown): FsError {
  return new FsError('FS_NOT_TEXT', `${path ?? 'file'} is not UTF-8 text: ${reason}`, { path, cause })
}

/** Decodes a whole file. Binary (a NUL in the first 8 KiB) or invalid UTF-8 fails `FS_NOT_TEXT`. */
export function decodeText(bytes: Uint8Array, path?: string): DecodedText {
  // One non-streaming decode first: Node's streaming TextDecoder takes a path several times slower
  // (about 5 s for a 100 MB file against 1 s), which put large edits past any reasonable deadline.
  const bom = hasBom(bytes)
  const body = bom ? bytes.subarray(3) : bytes
  if (body.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) < 0) {
    try {
      return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body), bom }
    } catch {}
  }
  // Not text: the incremental decoder names the precise reason.
  const decoder = new Utf8StreamDecoder(path)
  const text = decoder.push(bytes) + decoder.end()
  return { text, bom: decoder.bom }
}

/**
 * Incremental form of `decodeText`: the same checks over a byte stream, holding back only the bytes of
 * a character split across chunks.
 */
export class Utf8StreamDecoder {
  bom = false
  #decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  #offset = 0
  #head: Uint8Array = new Uint8Array(0)
  #started = false
  /** The start of a character split across chunks, held back by `skip`. */
  #tail: Uint8Array = new Uint8Array(0)

  /**
   * `offset`: where in the file the stream starts, for a reader that resumes at a line it found
   * before. Past the start there is no BOM to look for, and binary sniffing covers only what is
   * left of the first 8 KiB. The caller must start at a character boundary (a line start is one).
   */
  constructor(private readonly path?: string, options: { offset?: number } = {}) {
    const offset = options.offset ?? 0
    if (offset > 0) {
      this.#started = true
      this.#offset = offset
    }
  }

  push(chunk: Uint8Array): string {
    const body = this.#begin(chunk)
    if (body === undefined || body.length === 0) return ''
    this.#sniff(body)
    try {
      if (this.#tail.length === 0) return this.#decoder.decode(body, { stream: true })
      const tail = this.#tail
      this.#tail = new Uint8Array(0)
      return this.#decoder.decode(tail, { stream: true }) + this.#decoder.decode(body, { stream: true })
    } catch (error) {
      throw notText('invalid UTF-8', this.path, error)
    }
  }

  /**
   * Checks a chunk like `push` (BOM, binary sniff, UTF-8 validity) without building a string: the
   * fast way past text nobody will look at. `skip` and `push` may alternate, as long as nothing
   * is pushed while the decoder holds part of a character from `push`.
   */
  skip(chunk: Uint8Array): void {
    let body = this.#begin(chunk)
    if (body === undefined) return
    this.#sniff(body)
    if (this.#tail.length > 0) {
      const need = sequenceLength(this.#tail[0]!) - this.#tail.length
      const piece = concatBytes(this.#tail, body.subarray(0, need))
      if (piece.length < need + this.#tail.length) {
        // Still incomplete: what arrived must be able to continue the character, or it is refused now
        // (a reader that resumes after these bytes relies on them having been checked).
        if (!body.every(isContinuation)) throw notText('invalid UTF-8', this.path)
        this.#tail = Uint8Array.from(piece)
        return
      }
      if (!isUtf8(piece)) throw notText('invalid UTF-8', this.path)
      this.#tail = new Uint8Array(0)
      body = body.subarray(need)
    }
    const complete = completePrefix(body)
    if (!isUtf8(body.subarray(0, complete))) throw notText('invalid UTF-8', this.path)
    // A copy: chunks may be views into a buffer the provider reuses (and Buffer#slice is a view).
    this.#tail = Uint8Array.from(body.subarray(complete))
  }

  end(): string {
    if (!this.#started) {
      this.#started = true
      const head = this.#head
      this.#head = new Uint8Array(0)
      if (head.length > 0) return this.push(head) + this.end()
    }
    if (this.#tail.length > 0) throw notText('invalid UTF-8 (truncated character at the end)', this.path)
    try {
      return this.#decoder.decode()
    } catch (error) {
      throw notText('invalid UTF-8 (truncated character at the end)', this.path, error)
    }
  }

  /** Handles the BOM at the start of the stream; `undefined` while too few bytes have arrived to tell. */
  #begin(chunk: Uint8Array): Uint8Array | undefined {
    if (this.#started) return chunk
    // The BOM decision needs three bytes; hold back a shorter head until they arrive.
    const joined = concatBytes(this.#head, chunk)
    if (joined.length < 3 && joined.every((byte, i) => byte === UTF8_BOM[i])) {
      this.#head = Uint8Array.from(joined)
      return undefined
    }
    this.#started = true
    this.#head = new Uint8Array(0)
    this.bom = hasBom(joined)
    return this.bom ? joined.subarray(3) : joined
  }

  #sniff(chunk: Uint8Array): void {
    if (this.#offset >= BINARY_SNIFF_BYTES) return
    const window = chunk.subarray(0, BINARY_SNIFF_BYTES - this.#offset)
    const nul = window.indexOf(0)
    if (nul >= 0) throw notText(`binary data (NUL byte at offset ${this.#offset + nul})`, this.path)
    this.#offset += chunk.length
  }
}

/** A byte stream decoded as it arrives: how a provider that streams bytes gets its `streamText`. */
export async function* decodeChunks(chunks: AsyncIterable<Uint8Array>, path?: string): AsyncIterable<string> {
  const decoder = new Utf8StreamDecoder(path)
  for await (const chunk of chunks) {
    const text = decoder.push(chunk)
    if (text) yield text
  }
  const rest = decoder.end()
  if (rest) yield rest
}

/** Bytes in the UTF-8 sequence a lead byte starts (1 for anything that cannot start one). */
function sequenceLength(lead: number): number {
  return lead >= 0xf8 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
}

function isContinuation(byte: number): boolean {
  return byte >= 0x80 && byte < 0xc0
}

/** The length of `bytes` without a trailing, incomplete UTF-8 sequence. */
function completePrefix(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const byte = bytes[i]!
    if (byte >= 0x80 && byte < 0xc0) continue
    return sequenceLength(byte) > bytes.length - i ? i : bytes.length
  }
  return bytes.length
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

export function encodeText(text: string, bom: boolean): Uint8Array {
  const body = new TextEncoder().encode(text)
  return bom ? concatBytes(UTF8_BOM, body) : body
}

export type LineEnding = '\n' | '\r\n'

export interface LineEndingCounts {
  crlf: number
  /** Line feeds not preceded by a carriage return. */
  lf: number
}

export function countLineEndings(text: string): LineEndingCounts {
  let crlf = 0
  let lf = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++
    else lf++
  }
  return { crlf, lf }
}

/** The line ending most of the file uses; LF on a tie or when there is none. */
export function dominantLineEnding(text: string): LineEnding {
  const { crlf, lf } = countLineEndings(text)
  return crlf > lf ? '\r\n' : '\n'
}

export function normalizeLineEndings(text: string): string {
  return text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text
}

/** What an overwrite keeps of the file it replaces. */
export interface TextStyle {
  bom: boolean
  /** Every line ending is CRLF (and there is at least one). */
  crlf: boolean
}

export function styleOfText(previous: DecodedText): TextStyle {
  const { crlf, lf } = countLineEndings(previous.text)
  return { bom: previous.bom, crlf: crlf > 0 && lf === 0 }
}

/**
 * The text to store when `content` overwrites a file that held `previous` (null for a new file).
 * New files are written as given. Over an existing file the BOM is kept, and a file that used CRLF
 * throughout stays CRLF when the new content has bare LF only.
 */
export function prepareOverwrite(previous: DecodedText | TextStyle | null, content: string): DecodedText {
  const leadingBom = content.charCodeAt(0) === 0xfeff
  let text = leadingBom ? content.slice(1) : content
  if (previous === null) return { text, bom: leadingBom }
  const style = 'text' in previous ? styleOfText(previous) : previous
  if (style.crlf && crlfRuleApplies(text)) text = text.replaceAll('\n', '\r\n')
  return { text, bom: style.bom || leadingBom }
}

/** Whether the CRLF rule of `prepareOverwrite` can change `content`: it has bare LFs only. */
export function crlfRuleApplies(content: string): boolean {
  return content.includes('\n') && !content.includes('\r\n')
}

/**
 * Learns the `TextStyle` of a file from as few bytes as it can: the BOM from the first three and,
 * only when `content` is subject to the CRLF rule, line endings up to the first bare LF. Feed chunks
 * until `push` returns true, then call `end`. Unlike `decodeText`, bytes after the decision are
 * never looked at, so a file that turns invalid later still counts as text: the cost of replacing a
 * large file no longer includes reading it whole.
 */
export class TextStyleProbe {
  #decoder = new Utf8StreamDecoder()
  #seen = 0
  #crlf = 0
  #bareLf = false
  #lastWasCr = false
  #notText = false

  constructor(private readonly content: string) {}

  push(chunk: Uint8Array): boolean {
    if (this.#notText) return true
    try {
      this.#decoder.skip(chunk)
    } catch {
      this.#notText = true
      return true
    }
    this.#seen += chunk.length
    for (let i = chunk.indexOf(0x0a); i >= 0 && !this.#bareLf; i = chunk.indexOf(0x0a, i + 1)) {
      if ((i > 0 ? chunk[i - 1] === 0x0d : this.#lastWasCr)) this.#crlf++
      else this.#bareLf = true
    }
    if (chunk.length > 0) this.#lastWasCr = chunk[chunk.length - 1] === 0x0d
    return this.#seen >= 3 && (this.#bareLf || !crlfRuleApplies(this.content))
  }

  /** The style; `atEnd` says the whole file was pushed (a truncated last character is then not text). */
  end(atEnd: boolean): TextStyle | null {
    if (!this.#notText && atEnd) {
      try {
        this.#decoder.end()
      } catch {
        this.#notText = true
      }
    }
    return this.#notText ? null : { bom: this.#decoder.bom, crlf: !this.#bareLf && this.#crlf > 0 }
  }
}
