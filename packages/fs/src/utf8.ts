// Byte-level facts of UTF-8 that the decoder and the writers share.

/** The UTF-8 byte order mark: hidden from readers, kept by writers over a file that has it. */
export const UTF8_BOM = Uint8Array.of(0xef, 0xbb, 0xbf)

export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
}

export function encodeText(text: string, bom: boolean): Uint8Array {
  const body = new TextEncoder().encode(text)
  return bom ? concatBytes(UTF8_BOM, body) : body
}

/** Bytes in the UTF-8 sequence a lead byte starts (1 for anything that cannot start one). */
export function sequenceLength(lead: number): number {
  return lead >= 0xf8 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
}

export function isContinuation(byte: number): boolean {
  return byte >= 0x80 && byte < 0xc0
}

/** The length of `bytes` without a trailing, incomplete UTF-8 sequence. */
export function completePrefix(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const byte = bytes[i]!
    if (byte >= 0x80 && byte < 0xc0) continue
    return sequenceLength(byte) > bytes.length - i ? i : bytes.length
  }
  return bytes.length
}

export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}
