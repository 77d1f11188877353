import { z } from 'zod'

/** The limits of image and PDF reads, shared by `read` and the editor's `view`. */
export const MediaConfig = z.object({
  readMedia: z.boolean().default(false)
    .describe('Show PNG, JPEG, GIF and WebP images as images and PDFs as page text; off, they are refused as binary, as before.'),
  readMediaMaxBytes: z.number().int().min(1).default(32 * 1024 * 1024)
    .describe('The largest image or PDF file (bytes) a read opens; a larger one is refused by its size, before it is fetched.'),
  readImageMaxSide: z.number().int().min(1).default(8000)
    .describe('Most pixels on each side of an image a read returns; a larger image is downscaled, aspect kept.'),
  readImageMaxBytes: z.number().int().min(1).default(5 * 1024 * 1024)
    .describe('Most bytes (before base64) of an image a read returns; a larger image is downscaled until it fits.'),
  readImageMaxPixels: z.number().int().min(1).default(100_000_000)
    .describe('Most pixels an image file may declare; a larger one (a decompression bomb) is refused from its header, never decoded.'),
  readPdfMaxDecodedBytes: z.number().int().min(1).default(64 * 1024 * 1024)
    .describe('Most bytes of decoded streams (page contents, fonts) one PDF read may inflate; a PDF past it (a decompression bomb) is refused.'),
  readPdfMaxHeapMb: z.number().int().min(8).default(128)
    .describe('Most megabytes of JavaScript heap the thread that parses a PDF may use; a PDF past it is refused.'),
  readPdfMaxMs: z.number().int().min(1).default(10_000)
    .describe('Most milliseconds one PDF read may parse on its thread; a PDF past it is refused (nothing shown).'),
})

export type MediaLimits = z.output<typeof MediaConfig>

/** The defaults, for callers that take no configuration of their own. */
export const DEFAULT_MEDIA_LIMITS: MediaLimits = MediaConfig.parse({})
