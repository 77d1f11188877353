import { UTF8_BOM } from '@deepseek-ai/dsh-fs/kit'
import type { Descriptor } from './calls'

/** Content given as text: encoded while it is written, so a large file is never held twice in memory. */
export type StagedText = { text: string; bom: boolean }

export async function writeAll(handle: Descriptor, bytes: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset)
    offset += bytesWritten
  }
}

/** UTF-16 units encoded per write (at most 3 bytes each). */
const CHUNK_UNITS = 1024 * 1024
const BUFFER_BYTES = 3 * CHUNK_UNITS + UTF8_BOM.length
/** Texts this short are encoded into a buffer of their own: a pooled one would save nothing. */
const SMALL_UNITS = 16 * 1024
const encoder = new TextEncoder()

/** At most four encode buffers kept: a fresh one's page faults cost more than encoding (12–35 % on 1 MiB writes). */
export class EncodeBuffers {
  #pool: Buffer[] = []

  take(): Buffer {
    return this.#pool.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES)
  }

  giveBack(buffer: Buffer | undefined): void {
    if (buffer !== undefined && this.#pool.length < 4) this.#pool.push(buffer)
  }
}

/** Writes `text` as UTF-8 (behind a BOM if asked), in slices encoded into one pooled buffer while the other is written: no buffer the size of the file. */
export async function writeEncoded(handle: Descriptor, { text, bom }: StagedText, buffers: EncodeBuffers): Promise<void> {
  if (text.length <= SMALL_UNITS) return writeAll(handle, bom ? Buffer.concat([UTF8_BOM, encoder.encode(text)]) : encoder.encode(text))
  const pair: [Buffer | undefined, Buffer | undefined] = [buffers.take(), undefined]
  let writing: Promise<void> | undefined
  try {
    if (bom) pair[0]!.set(UTF8_BOM)
    let head = bom ? UTF8_BOM.length : 0
    for (let at = 0, turn = 0; at < text.length; turn ^= 1) {
      let end = Math.min(text.length, at + CHUNK_UNITS)
      // A surrogate pair is never cut in two (each half alone would be encoded as U+FFFD).
      const last = text.charCodeAt(end - 1)
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
      const buffer = (pair[turn] ??= buffers.take())
      const { read, written } = encoder.encodeInto(at === 0 && end === text.length ? text : text.slice(at, end), buffer.subarray(head))
      at += read
      await writing
      writing = writeAll(handle, buffer.subarray(0, head + written))
      head = 0
    }
    await writing
  } finally {
    // A write still in flight must finish before its buffer is reused or the descriptor closed.
    await writing?.catch(() => {})
    buffers.giveBack(pair[0])
    buffers.giveBack(pair[1])
  }
}
