/** The media a read shows other than text: the four image formats models take, and PDF. */
export type MediaKind = 'png' | 'jpeg' | 'gif' | 'webp' | 'pdf'

export const MEDIA_TYPES: Readonly<Record<MediaKind, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
}

/** How a sentence names a file of each kind. */
export const MEDIA_NAMES: Readonly<Record<MediaKind, string>> = {
  png: 'a PNG image',
  jpeg: 'a JPEG image',
  gif: 'a GIF image',
  webp: 'a WebP image',
  pdf: 'a PDF document',
}

const EXTENSIONS = /\.(png|jpe?g|gif|webp|pdf)$/i

/**
 * Whether a path's name says image or PDF: such a read asks for the bytes in its one step. The
 * name only routes the call; what the bytes are is decided by `mediaKindOf`.
 */
export function namedAsMedia(path: string): boolean {
  return EXTENSIONS.test(path)
}

/** The format the bytes start with (their signature), or `undefined` for anything else. */
export function mediaKindOf(bytes: Uint8Array): MediaKind | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(1, 8) === 'PNG\r\n\u001a\n') return 'png'
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg'
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(ascii(0, 6))) return 'gif'
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp'
  // A PDF may have bytes before its header; readers accept it within the first kilobyte.
  if (ascii(0, Math.min(bytes.length, 1024)).includes('%PDF-')) return 'pdf'
  return undefined
}
