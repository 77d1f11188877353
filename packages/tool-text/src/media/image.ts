import { type Pixels, renderMediaInvalid, renderTooManyPixels } from '../render-media'
import { ToolError } from '@deepseek-ai/dsh-tools'
import type { Sharp, SharpOptions } from 'sharp'
import type { MediaLimits } from './config'
import { type Size, smallerFor, withinSide } from './fit'
import { type MediaKind, MEDIA_TYPES } from '../media-kind'

export type ImageKind = Exclude<MediaKind, 'pdf'>

export const IMAGE_FORMATS: Readonly<Record<ImageKind, string>> = { png: 'PNG', jpeg: 'JPEG', gif: 'GIF', webp: 'WebP' }

export interface ImageResult {
  mimeType: string
  data: Uint8Array
  original: Pixels
  /** `original` itself when the image is returned as it is. */
  shown: Pixels
}

// Attempts at a smaller size before giving up; each one shrinks the image by at least 10 %.
const MAX_ENCODINGS = 24

/**
 * The image a read returns for `bytes`. Its header is read first (libvips reads no pixels for
 * it): a declared size over `readImageMaxPixels` is refused there, never decoded. An image within
 * the limits is decoded once (off the event loop, in libvips' threads) to prove it intact, and
 * returned byte for byte; a larger one is downscaled, aspect kept, in its own format, until it
 * fits both the side and the byte limit. `sharp` is loaded on the first image, not at start.
 */
export async function prepareImage(bytes: Uint8Array, kind: ImageKind, path: string, limits: MediaLimits): Promise<ImageResult> {
  const { default: sharp } = await import('sharp')
  // No operation cache: a read's pixels are released with its call, whatever comes next.
  sharp.cache(false)
  const options: SharpOptions = { limitInputPixels: limits.readImageMaxPixels, failOn: 'truncated', sequentialRead: true }
  const open = () => sharp(bytes, options)
  // The header alone, read without the pixel limit so that a refusal can name the declared size.
  const size = await headerSize(sharp(bytes, { ...options, limitInputPixels: false }), kind, path, limits)
  const original = { ...size, bytes: bytes.length }
  const mimeType = MEDIA_TYPES[kind]
  if (Math.max(size.width, size.height) <= limits.readImageMaxSide && bytes.length <= limits.readImageMaxBytes) {
    await decoded(open().resize(64, 64, { fit: 'inside' }).raw().toBuffer(), kind, path)
    return { mimeType, data: bytes, original, shown: original }
  }
  let target = withinSide(size, limits.readImageMaxSide)
  for (let attempt = 1; ; attempt++) {
    const data = await decoded(encoded(open().resize(target.width, target.height, { fit: 'fill' }), kind).toBuffer(), kind, path)
    if (data.length <= limits.readImageMaxBytes || attempt === MAX_ENCODINGS) return { mimeType, data, original, shown: { ...target, bytes: data.length } }
    target = smallerFor(target, data.length, limits.readImageMaxBytes)
  }
}

/** The pixel size the header declares (one frame of an animation), refused over the pixel limit. */
async function headerSize(header: Sharp, kind: ImageKind, path: string, limits: MediaLimits): Promise<Size> {
  const format = IMAGE_FORMATS[kind]
  const meta = await decoded(header.metadata(), kind, path)
  const width = meta.width
  const height = meta.pageHeight ?? meta.height
  if (!(width > 0 && height > 0)) throw new ToolError('MEDIA_INVALID', renderMediaInvalid(path, format, 'its header declares no size'))
  if (width * height > limits.readImageMaxPixels) {
    throw new ToolError('MEDIA_TOO_MANY_PIXELS', renderTooManyPixels(path, format, `${width}×${height} pixels`, limits.readImageMaxPixels))
  }
  return { width, height }
}

/** The format's encoder, at settings fixed here so that the same image always encodes the same. */
function encoded(pipeline: Sharp, kind: ImageKind): Sharp {
  if (kind === 'png') return pipeline.png({ compressionLevel: 9 })
  if (kind === 'jpeg') return pipeline.jpeg({ quality: 85 })
  if (kind === 'webp') return pipeline.webp({ quality: 85 })
  return pipeline.gif()
}

/** A libvips failure as the typed error of a read that names the file. */
async function decoded<T>(work: Promise<T>, kind: ImageKind, path: string): Promise<T> {
  try {
    return await work
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]!.trim() : String(error)
    throw new ToolError('MEDIA_INVALID', renderMediaInvalid(path, IMAGE_FORMATS[kind], reason), { cause: error })
  }
}
