/* What the model reads about an image or a PDF it asked to see, and why one could not be shown. */

export interface Pixels {
  width: number
  height: number
  bytes: number
}

export interface ImageShown {
  path: string
  /** The format's name as people write it: `PNG`, `JPEG`, `GIF`, `WebP`. */
  format: string
  original: Pixels
  /** What the result carries: the original itself, or the image downscaled to fit the limits. */
  shown: Pixels
  maxSide: number
  maxBytes: number
}

const size = (p: Pixels) => `${p.width}×${p.height} pixels`
const count = (n: number) => n.toLocaleString('en-US')

export function renderImageShown(image: ImageShown): string {
  const { path, format, original, shown } = image
  const head = `${path}: ${format} image, ${size(original)} (${count(original.bytes)} bytes)`
  if (shown === original) return `${head}, shown below as it is.`
  const why = `to fit the read limits of ${count(image.maxSide)} pixels a side and ${count(image.maxBytes)} bytes`
  const how = shown.width === original.width && shown.height === original.height ? 're-encoded' : `downscaled to ${size(shown)}`
  return `${head}, shown below ${how} (${count(shown.bytes)} bytes) ${why}; the file itself is unchanged.`
}

export interface PdfPageText {
  number: number
  /** The page's text; empty when the page has no text layer. */
  text: string
  /** The text was cut at the read's byte budget. */
  cut?: boolean
}

export interface PdfShown {
  path: string
  pageCount: number
  pages: readonly PdfPageText[]
}

export function renderPdfPages(pdf: PdfShown): string {
  const { path, pageCount, pages } = pdf
  const first = pages[0]!.number
  const last = pages.at(-1)!.number
  const range = first === last ? `page ${first}` : `pages ${first}-${last}`
  const rest = last < pageCount ? ` To continue, read it again with pages: "${last + 1}-${Math.min(pageCount, last + pages.length)}".` : ''
  const blocks = pages.map(renderPdfPage)
  return `${path}: PDF, ${pageCount} ${pageCount === 1 ? 'page' : 'pages'}; the text of ${range} follows.${rest}\n\n${blocks.join('\n\n')}`
}

/** One page's block of `renderPdfPages` (what a page costs the read's budget is its size). */
export function renderPdfPage(page: PdfPageText): string {
  const body = page.text.trim().length === 0 ? '(This page has no text layer: it is an image or drawing only, so it has no text to show.)' : page.text.replace(/\s+$/, '')
  return `--- Page ${page.number} ---\n${body}${page.cut === true ? '\n(Page text cut at the read budget.)' : ''}`
}

/** A range the model asked for that the document does not have, or cannot be read. */
export function renderPdfRange(path: string, pages: string, pageCount: number): string {
  return `pages "${pages}" is not a page range of ${path}, which has ${pageCount} ${pageCount === 1 ? 'page' : 'pages'}; `
    + `pass pages as "N" or "N-M" with 1 <= N <= M <= ${pageCount}, or leave it out to start at page 1`
}

export function renderPdfPassword(path: string): string {
  return `${path} is a PDF protected by a password, which is needed to open it; dsh cannot read it. `
    + 'Ask the user for a copy without the password'
}

export function renderMediaInvalid(path: string, format: string, reason: string): string {
  return `${path} starts as a ${format} file but cannot be decoded (${reason}): it is truncated or malformed. `
    + 'Nothing was shown; ask the user for an intact copy'
}

export function renderTooManyPixels(path: string, format: string, declared: string, maxPixels: number): string {
  return `${path} is a ${format} image declaring ${declared}, more than the ${count(maxPixels)} pixels a read decodes `
    + '(readImageMaxPixels): refused from its header, nothing was decoded'
}

/** `name` as `MEDIA_NAMES` says it: "a PNG image". */
export function renderMediaTooLarge(path: string, name: string, bytes: number, maxBytes: number): string {
  return `${path} is ${name} of ${count(bytes)} bytes, more than the ${count(maxBytes)} bytes a read opens (readMediaMaxBytes); `
    + 'nothing was read. Ask the user for a smaller copy, or raise readMediaMaxBytes'
}
