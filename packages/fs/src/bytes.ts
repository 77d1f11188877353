import { fsError } from './errors'

/**
 * The chunks of a byte stream as one buffer, at most `limit` bytes. Each chunk is copied as it
 * arrives (a provider may reuse the buffer behind it); a stream longer than `limit` (a file that
 * grew after its stat) fails `FS_TOO_LARGE` instead of growing memory past the bound.
 */
export async function collectBytes(chunks: AsyncIterable<Uint8Array>, limit: number, path: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  let length = 0
  for await (const chunk of chunks) {
    length += chunk.length
    if (length > limit) throw fsError('FS_TOO_LARGE', { path, reason: `is larger than ${limit} bytes` })
    // A copy: a chunk may be a view into a buffer the provider reuses (and a Buffer's `slice` is a view).
    parts.push(new Uint8Array(chunk))
  }
  return Buffer.concat(parts, length)
}
