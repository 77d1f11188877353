import iconv from 'iconv-lite'
import { fsError } from './errors'
import { lineAndColumn } from './encodable'

// The text encodings a file may be in besides UTF-8, named as the WHATWG Encoding Standard and
// iconv-lite spell them. Conversion is iconv-lite's; what this module adds is the rule that a file
// is only taken to be in an encoding when its bytes convert back to exactly themselves.

export const FS_TEXT_ENCODINGS = [
  'utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'iso-8859-1', 'shift_jis', 'euc-jp', 'gbk', 'gb18030', 'euc-kr',
] as const

export type FsTextEncoding = (typeof FS_TEXT_ENCODINGS)[number]

export function isTextEncoding(name: unknown): name is FsTextEncoding {
  return typeof name === 'string' && (FS_TEXT_ENCODINGS as readonly string[]).includes(name)
}

const UTF16LE_BOM = Uint8Array.of(0xff, 0xfe)
const UTF16BE_BOM = Uint8Array.of(0xfe, 0xff)

/** The UTF-16 encoding a file's byte order mark names, if it starts with one. */
export function utf16Bom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes.length < 2) return undefined
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le'
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be'
  return undefined
}

/** The bytes of the byte order mark of `encoding` (UTF-16 only here; UTF-8's is `UTF8_BOM`). */
export function bomOf(encoding: 'utf-16le' | 'utf-16be'): Uint8Array {
  return encoding === 'utf-16le' ? UTF16LE_BOM : UTF16BE_BOM
}

/**
 * `bytes` (without a BOM) decoded as `encoding`, or `undefined` when they are not exactly text in it:
 * a byte sequence the encoding does not define, or one of several spellings of a character that
 * converts back to another. Only a text that re-encodes to the same bytes can be edited byte-exact.
 */
export function decodeExactly(bytes: Uint8Array, encoding: FsTextEncoding): string | undefined {
  const text = iconv.decode(bytes as Buffer, encoding, { stripBOM: false })
  const back = iconv.encode(text, encoding, { addBOM: false })
  return Buffer.compare(back, bytes) === 0 ? text : undefined
}

/**
 * `text` encoded as `encoding` (a non-UTF-8 one), behind its BOM when `bom`. A character the
 * encoding cannot represent fails `FS_NOT_ENCODABLE`, naming it and its line: nothing is replaced
 * by a substitute, so nothing is written.
 */
export function encodeExactly(text: string, encoding: FsTextEncoding, bom: boolean, path?: string): Uint8Array {
  const body = iconv.encode(text, encoding, { addBOM: false })
  const back = iconv.decode(body, encoding, { stripBOM: false })
  if (back !== text) {
    let at = 0
    while (at < text.length && back.charCodeAt(at) === text.charCodeAt(at)) at++
    const character = String.fromCodePoint(text.codePointAt(at)!)
    throw fsError('FS_NOT_ENCODABLE', { path, unencodable: { encoding, character, ...lineAndColumn(text, at) } })
  }
  if (!bom || (encoding !== 'utf-16le' && encoding !== 'utf-16be')) return body
  const out = new Uint8Array(body.length + 2)
  out.set(bomOf(encoding))
  out.set(body, 2)
  return out
}
