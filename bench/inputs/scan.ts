import { isUtf8 } from 'node:buffer'
import { open } from 'node:fs/promises'

/**
 * Prototypes used to locate the cost of a far read window (B1), not product code.
 * `byteScan`: the window's start found in the raw bytes — 1 MiB reads, line feeds counted with
 * `Buffer.indexOf`, every skipped byte still validated as UTF-8 (`buffer.isUtf8`, carrying a split
 * character over) — i.e. what the read path would cost if it decoded only the window.
 */
export async function byteScan(path: string, line: number): Promise<number> {
  const handle = await open(path)
  const buffer = Buffer.allocUnsafe((1 << 20) + 4)
  let carry = 0
  let current = 1
  let offset = 0
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, carry, 1 << 20, offset)
      if (bytesRead === 0) return current
      offset += bytesRead
      const end = carry + bytesRead
      const cut = completeUtf8Prefix(buffer, end)
      if (!isUtf8(buffer.subarray(0, cut))) throw new Error('not UTF-8')
      for (let at = buffer.indexOf(10, carry); at >= 0 && at < end; at = buffer.indexOf(10, at + 1)) {
        if (++current === line) return current
      }
      buffer.copy(buffer, 0, cut, end)
      carry = end - cut
    }
  } finally {
    await handle.close()
  }
}

/** `streamDecode`: the same prefix through a streaming `TextDecoder` in 64 KiB reads, as the provider's `streamText` does. */
export async function streamDecode(path: string, line: number): Promise<number> {
  const handle = await open(path)
  const buffer = Buffer.allocUnsafe(64 * 1024)
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let current = 1
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) return current
      const text = decoder.decode(buffer.subarray(0, bytesRead), { stream: true })
      for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
        if (++current === line) return current
      }
    }
  } finally {
    await handle.close()
  }
}

/** Length of the longest prefix of `buffer[0, end)` that does not end inside a UTF-8 sequence. */
function completeUtf8Prefix(buffer: Buffer, end: number): number {
  for (let k = end - 1; k >= Math.max(0, end - 4); k--) {
    const byte = buffer[k]!
    if ((byte & 0xc0) === 0x80) continue
    if (byte < 0xc0) return end
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
    return end - k < need ? k : end
  }
  return end
}
