import { isUtf8 } from 'node:buffer'
import { type FsError, fsError } from './errors'
import type { FsTextEncoding } from './encodings'
import { decodeLegacy } from './legacy'
import type { FsTextDecoding } from './decoding'
import { completePrefix, concatBytes, hasBom, isContinuation, sequenceLength, UTF8_BOM } from './utf8'

/** How far into a file a NUL byte marks it as binary. */
export const BINARY_SNIFF_BYTES = 8192

export interface DecodedText {
  /** The text without its BOM. */
  text: string
  bom: boolean
  /** The file's encoding when it is not UTF-8 (only under an `FsTextDecoding`, see `decodeLegacy`). */
  encoding?: FsTextEncoding
}

function notText(reason: string, path: string | undefined, cause?: unknown): FsError {
  return fsError('FS_NOT_TEXT', { path, reason, cause })
}

/**
 * Decodes a whole file. Binary (a NUL in the first 8 KiB) or invalid UTF-8 fails `FS_NOT_TEXT`,
 * unless the caller's `decoding` decides another encoding (and then records it in `decoding.decided`).
 */
export function decodeText(bytes: Uint8Array, path?: string, decoding?: FsTextDecoding): DecodedText {
  // One non-streaming decode first: Node's streaming TextDecoder takes a path several times slower
  // (about 5 s for a 100 MB file against 1 s), which put large edits past any reasonable deadline.
  const bom = hasBom(bytes)
  const body = bom ? bytes.subarray(3) : bytes
  if (body.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) < 0) {
    try {
      return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body), bom }
    } catch {}
  }
  // Not UTF-8: another encoding when the caller allows one (the UTF-8 path above never pays for it).
  const legacy = decodeLegacy(bytes, path, decoding)
  if (legacy !== undefined) return legacy
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
