import { type FileSystem, type FsInfo, type FsObservation, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { seenEverything } from '@deepseek-ai/dsh-fs/kit'
import { MEDIA_NAMES, mediaKindOf } from '../media-kind'
import { type PageArgument, renderImageShown, renderMediaTooLarge, renderPdfPages } from '../render-media'
import { textResult, ToolError, type ToolResult } from '@deepseek-ai/dsh-tools'
import type { MediaLimits } from './config'
import { IMAGE_FORMATS, prepareImage } from './image'
import { pdfText } from './pdf'
import type { PdfThreads } from './pdf-worker'

export interface MediaOptions {
  limits: MediaLimits
  /** Bytes of PDF text one read shows (the read's byte budget). */
  budget: number
  /** The PDF page range asked for (`"1-5"`); the first pages when absent. */
  pages?: string
  /** The argument the calling tool names pages with, in every text that names other pages (default `pages`). */
  pageArgument?: PageArgument
  /** Ends the parsing of a PDF when the call is aborted. */
  signal?: AbortSignal
  /** The plugin's PDF threads (bounded in number, one kept idle); without them a read starts its own. */
  pdfThreads?: PdfThreads
}

/**
 * What a read shows of a file whose bytes are an image or a PDF (by their signature, whatever
 * the name says): the image and a text with its dimensions, or the text of a PDF's pages.
 * `undefined` for any other bytes, which the caller treats as it treats text or binary.
 */
export async function showMedia(bytes: Uint8Array, path: string, options: MediaOptions): Promise<ToolResult | undefined> {
  const kind = mediaKindOf(bytes)
  if (kind === undefined) return undefined
  if (kind === 'pdf') return textResult(renderPdfPages(await pdfText(bytes, path, options), options.pageArgument))
  const { limits } = options
  const image = await prepareImage(bytes, kind, path, limits)
  const text = renderImageShown({
    path, format: IMAGE_FORMATS[kind], original: image.original, shown: image.shown, maxSide: limits.readImageMaxSide, maxBytes: limits.readImageMaxBytes,
  })
  return { content: [{ type: 'text', text }], images: [{ type: 'image', data: Buffer.from(image.data).toString('base64'), mimeType: image.mimeType }], isError: false }
}

/**
 * A media read is an observation of the whole version: nothing of an image or PDF can be changed
 * in part, and a whole-file `write` over it needs it read (the text rule's "every line seen").
 */
export function mediaObservation(version: FsVersion): FsObservation {
  return { kind: 'present', version, seen: seenEverything(0) }
}

/**
 * The bytes of a regular file that its read's one step did not bring (its name did not say image
 * or PDF, or it is over the bound), when they are an image or PDF: the first chunk decides, so
 * other files cost one chunk. An image or PDF over `readMediaMaxBytes` is refused by its size.
 */
export async function fetchMedia(fs: FileSystem, target: FsTarget, info: FsInfo, limits: MediaLimits, signal?: AbortSignal): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = []
  let length = 0
  // Of the version the read stat'ed (and records as observed), or FS_STALE_VERSION.
  for await (const chunk of fs.streamBytesFrom(target, 0, signal === undefined ? { version: info.version } : { version: info.version, signal })) {
    if (length === 0) {
      const kind = mediaKindOf(chunk)
      if (kind === undefined) return undefined
      const size = info.size ?? 0
      if (size > limits.readMediaMaxBytes) throw new ToolError('FS_TOO_LARGE', renderMediaTooLarge(target.displayPath, MEDIA_NAMES[kind], size, limits.readMediaMaxBytes))
    }
    length += chunk.length
    // Grown past the bound since the stat: the file is refused as it would have been then.
    if (length > limits.readMediaMaxBytes) throw new ToolError('FS_TOO_LARGE', renderMediaTooLarge(target.displayPath, 'an image or PDF', length, limits.readMediaMaxBytes))
    // A copy: the provider may reuse the chunk's buffer (and a Buffer's `slice` is a view).
    parts.push(new Uint8Array(chunk))
  }
  return length === 0 ? undefined : Buffer.concat(parts, length)
}
