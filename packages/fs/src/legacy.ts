import type { FsTextDecoding } from './decoding'
import type { DecodedText } from './decode'
import { detectEncoding } from './detect'
import { decodeExactly, type FsTextEncoding, utf16Bom } from './encodings'
import { type FsEncodingCandidate, fsError } from './errors'

/** How far into a file a NUL byte marks it as binary (as `BINARY_SNIFF_BYTES`; UTF-16 is exempt). */
const SNIFF_BYTES = 8192

/**
 * Decodes bytes that failed UTF-8 decoding under the caller's `FsTextDecoding`: a UTF-16 BOM, else
 * (for a file with no NUL byte near its start) the encoding the caller named, the detector's
 * confident guess, or the fallback, in that order. `undefined` without a decoding or when the
 * file is binary: the caller then refuses it as before. Bytes that are not exactly text in the
 * chosen encoding fail `FS_NOT_TEXT` naming it; an undecided detection fails naming its candidates.
 */
export function decodeLegacy(bytes: Uint8Array, path: string | undefined, decoding: FsTextDecoding | undefined): DecodedText | undefined {
  if (decoding === undefined) return undefined
  const bom = utf16Bom(bytes)
  if (bom !== undefined) return decided(decoding, exactly(bytes.subarray(2), bom, path), bom, true)
  if (bytes.subarray(0, SNIFF_BYTES).indexOf(0) >= 0) return undefined
  if (decoding.encoding !== undefined) return decided(decoding, namedExactly(bytes, decoding.encoding, path), decoding.encoding, false)
  let candidates: FsEncodingCandidate[] = []
  if (decoding.detect) {
    const detection = detectEncoding(bytes)
    if (detection.found !== undefined) return decided(decoding, detection.found.text, detection.found.encoding, false)
    candidates = detection.candidates
  }
  if (decoding.fallback !== undefined) return decided(decoding, namedExactly(bytes, decoding.fallback, path), decoding.fallback, false)
  if (!decoding.detect) return undefined
  throw fsError('FS_NOT_TEXT', { path, reason: undecidedReason(candidates), candidates })
}

function decided(decoding: FsTextDecoding, text: string, encoding: FsTextEncoding, bom: boolean): DecodedText {
  decoding.decided = encoding
  return encoding === 'utf-8' ? { text, bom } : { text, bom, encoding }
}

/** `exactly`, for an encoding the caller or the configuration named rather than a BOM. */
function namedExactly(bytes: Uint8Array, encoding: FsTextEncoding, path: string | undefined): string {
  // UTF-16 comes only from a BOM. BOM-less bytes named UTF-16 hold no NUL near their start (else
  // binary), so no line feed: the lines a read of them in an 8-bit encoding showed would be one
  // line here, and an edit's carried "seen" would cover lines never shown.
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    throw fsError('FS_NOT_TEXT', { path, reason: `nor exactly ${encoding} text (UTF-16 is read only after its byte order mark, and this file has none)` })
  }
  return exactly(bytes, encoding, path)
}

function exactly(bytes: Uint8Array, encoding: FsTextEncoding, path: string | undefined): string {
  const text = decodeExactly(bytes, encoding)
  if (text !== undefined) return text
  throw fsError('FS_NOT_TEXT', { path, reason: `nor exactly ${encoding} text (some bytes are not ${encoding}, or would not be written back the same)` })
}

function undecidedReason(candidates: readonly FsEncodingCandidate[]): string {
  if (candidates.length === 0) return 'the encoding detector found no supported encoding likely for it'
  const named = candidates.map(({ encoding, confidence }) => `${encoding} (confidence ${confidence} %)`).join(', ')
  return `its encoding is uncertain: it might be ${named}`
}
