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

/**
 * The argument a tool family names a PDF's pages with: `read` takes `pages: "4-6"`, the editor's
 * `view` takes `view_range: [4, 6]`. Every text that sends the model to other pages names them
 * in the argument of the tool that showed the refusal or the text.
 */
export type PageArgument = 'pages' | 'view_range'

/** Pages `first`–`last` as the call's argument writes them. */
export function renderPageArgument(argument: PageArgument, first: number, last: number): string {
  if (argument === 'view_range') return `view_range: [${first}, ${last}]`
  return first === last ? `pages: "${first}"` : `pages: "${first}-${last}"`
}

export interface PdfShown {
  path: string
  pageCount: number
  pages: readonly PdfPageText[]
}

export function renderPdfPages(pdf: PdfShown, argument: PageArgument = 'pages'): string {
  const { path, pageCount, pages } = pdf
  const first = pages[0]!.number
  const last = pages.at(-1)!.number
  const range = first === last ? `page ${first}` : `pages ${first}-${last}`
  const next = renderPageArgument(argument, last + 1, Math.min(pageCount, last + pages.length))
  const rest = last < pageCount ? ` To continue, ${argument === 'view_range' ? 'view' : 'read'} it again with ${next}.` : ''
  const blocks = pages.map(renderPdfPage)
  return `${path}: PDF, ${pageCount} ${pageCount === 1 ? 'page' : 'pages'}; the text of ${range} follows.${rest}\n\n${blocks.join('\n\n')}`
}

/** One page's block of `renderPdfPages` (what a page costs the read's budget is its size). */
export function renderPdfPage(page: PdfPageText): string {
  const body = page.text.trim().length === 0 ? '(This page has no text layer: it is an image or drawing only, so it has no text to show.)' : page.text.replace(/\s+$/, '')
  return `--- Page ${page.number} ---\n${body}${page.cut === true ? '\n(Page text cut at the read budget.)' : ''}`
}

/**
 * A range the model asked for that the document does not have, or cannot be read. `pages` is the
 * range as `read` takes it (`"N"`, `"N-M"`, `"N-"`); the editor's `view_range: [N, M]` arrives as `"N-M"`.
 */
export function renderPdfRange(path: string, pages: string, pageCount: number, argument: PageArgument = 'pages'): string {
  const [first, last] = pages.split('-')
  const asked = argument === 'view_range' ? `view_range [${first}, ${last === undefined ? first : last === '' ? -1 : last}]` : `pages "${pages}"`
  const what = `${asked} is not a page range of ${path}, which has ${pageCount} ${pageCount === 1 ? 'page' : 'pages'}; `
  const how = argument === 'view_range'
    ? `pass view_range as [N, M] with 1 <= N <= M <= ${pageCount}, or [N, -1] for page N to the end`
    : `pass pages as "N" or "N-M" with 1 <= N <= M <= ${pageCount}`
  return `${what}${how}, or leave it out to start at page 1`
}

export function renderPdfPassword(path: string): string {
  return `${path} is a PDF protected by a password, which is needed to open it; dsh cannot read it. `
    + 'Ask the user for a copy without the password'
}

/** What a PDF read ran out of: decoded stream bytes, its thread's heap, or time. */
export type PdfCost = 'decoded' | 'heap' | 'time'

const PDF_COST_KEYS: Record<PdfCost, string> = { decoded: 'readPdfMaxDecodedBytes', heap: 'readPdfMaxHeapMb', time: 'readPdfMaxMs' }
const PDF_COSTS: Record<PdfCost, (limit: number) => string> = {
  decoded: (limit) => `decodes to more than the ${count(limit)} bytes a PDF read inflates`,
  heap: (limit) => `needs more than the ${count(limit)} MB of memory a PDF read may use`,
  time: (limit) => `takes longer than the ${count(limit)} ms a PDF read may run`,
}

/**
 * A PDF whose parsing passed a bound (a decompression bomb, or a document too heavy to parse here):
 * the pages before the one that passed it can still be read.
 */
export function renderPdfTooCostly(refusal: { path: string; first: number; page: number | undefined; cost: PdfCost; limit: number; argument?: PageArgument }): string {
  const { path, first, page, cost, limit } = refusal
  const what = page === undefined ? `${path} is a PDF that` : `page ${page} of the PDF ${path}`
  const readable = page !== undefined && page > first ? (page - 1 === first ? `Page ${first}` : `Pages ${first}-${page - 1}`) : undefined
  const call = page === undefined ? '' : renderPageArgument(refusal.argument ?? 'pages', first, page - 1)
  const before = readable === undefined ? '' : `${readable} can be read with ${call}; for the rest, a`
  return `${what} ${PDF_COSTS[cost](limit)} (${PDF_COST_KEYS[cost]}), so nothing was shown (likely a decompression bomb or a malformed file). `
    + `${before === '' ? 'A' : before}sk the user for a text copy, or raise ${PDF_COST_KEYS[cost]} if the file is trusted`
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
