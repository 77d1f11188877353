/** What one newline-terminated line of input turned out to be. */
export type Line =
  | { kind: 'message'; text: string }
  /** Over the limit and discarded; `id` is the request's id when the line was a request. */
  | { kind: 'oversize'; bytes: number; id: string | number | null | undefined; request: boolean }

const NEWLINE = 0x0a

/**
 * Splits a byte stream into newline-delimited messages of at most `maxBytes` each. A longer line
 * is not kept: its bytes are counted and fed to an {@link IdScanner} as they pass, so memory stays
 * at `maxBytes` whatever the client sends, and the caller can still answer the request it held.
 */
export class LineReader {
  #parts: Buffer[] = []
  #size = 0
  #scanner: IdScanner | undefined
  #skipped = 0

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): Line[] {
    const lines: Line[] = []
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start)
      const end = newline === -1 ? chunk.length : newline
      this.#take(chunk.subarray(start, end))
      if (newline === -1) break
      lines.push(this.#finish())
      start = newline + 1
    }
    return lines
  }

  #take(bytes: Buffer): void {
    if (this.#scanner === undefined && this.#size + bytes.length <= this.maxBytes) {
      this.#parts.push(bytes)
      this.#size += bytes.length
      return
    }
    if (this.#scanner === undefined) {
      this.#scanner = new IdScanner()
      for (const part of this.#parts) this.#scanner.feed(part)
      this.#skipped = this.#size
      this.#parts = []
      this.#size = 0
    }
    this.#scanner.feed(bytes)
    this.#skipped += bytes.length
  }

  #finish(): Line {
    const scanner = this.#scanner
    if (scanner !== undefined) {
      const line: Line = { kind: 'oversize', bytes: this.#skipped, id: scanner.id, request: scanner.method }
      this.#scanner = undefined
      this.#skipped = 0
      return line
    }
    // A message that came in one chunk (the usual case) is decoded in place, without a copy.
    const bytes = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#size)
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length
    const text = bytes.toString('utf8', 0, end)
    this.#parts = []
    this.#size = 0
    return { kind: 'message', text }
  }
}

const MAX_ID_BYTES = 256

/**
 * Finds the top-level `"id"` and `"method"` members of a JSON object read in pieces, without
 * keeping it: only the nesting depth, whether it is inside a string, and the few bytes of a key
 * or of the id value. Members may come in any order (the SDK client writes `id` last).
 */
export class IdScanner {
  id: string | number | null | undefined = undefined
  method = false
  #depth = 0
  #inString = false
  #escaped = false
  /** Raw bytes of the current top-level string, while short enough to be a key or an id. */
  #text: number[] | undefined
  /** The top-level key just read, waiting for its `:`. */
  #key: string | undefined
  /** Set between a top-level `:` and the start of its value: the key that value belongs to. */
  #valueOf: string | undefined
  /** Bytes of a number (or `null`) being read as the id. */
  #scalar: number[] | undefined

  feed(bytes: Uint8Array): void {
    for (const byte of bytes) this.#step(byte)
  }

  #step(byte: number): void {
    if (this.#inString) return this.#stringByte(byte)
    if (this.#scalar !== undefined) {
      if (byte !== 0x2c && byte !== 0x7d && byte > 0x20) {
        if (this.#scalar.length < MAX_ID_BYTES) this.#scalar.push(byte)
        return
      }
      this.#endScalar()
    }
    if (byte <= 0x20) return
    const top = this.#depth === 1
    if (byte === 0x22) {
      this.#inString = true
      this.#text = top ? [] : undefined
    } else if (byte === 0x7b || byte === 0x5b) {
      this.#depth++
      if (top) this.#valueOf = undefined
    } else if (byte === 0x7d || byte === 0x5d) {
      this.#depth--
    } else if (top && byte === 0x3a) {
      this.#valueOf = this.#key ?? ''
      this.#key = undefined
    } else if (top && byte === 0x2c) {
      this.#valueOf = undefined
    } else if (top && this.#valueOf !== undefined) {
      if (this.#valueOf === 'id') this.#scalar = [byte]
      this.#valueOf = undefined
    }
  }

  #stringByte(byte: number): void {
    if (this.#escaped) this.#escaped = false
    else if (byte === 0x5c) this.#escaped = true
    else if (byte === 0x22) return this.#endString()
    if (this.#text === undefined) return
    if (this.#text.length < MAX_ID_BYTES) this.#text.push(byte)
    else this.#text = undefined
  }

  #endString(): void {
    this.#inString = false
    if (this.#depth !== 1) return
    const text = this.#text === undefined ? undefined : Buffer.from(this.#text).toString('utf8')
    if (this.#valueOf === undefined) {
      this.#key = text
      return
    }
    if (this.#valueOf === 'id' && text !== undefined) {
      const id = parseJson(`"${text}"`)
      if (typeof id === 'string') this.id = id
    }
    if (this.#valueOf === 'method') this.method = true
    this.#valueOf = undefined
  }

  #endScalar(): void {
    const value = parseJson(Buffer.from(this.#scalar!).toString('utf8'))
    if (typeof value === 'number' || value === null) this.id = value
    this.#scalar = undefined
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
