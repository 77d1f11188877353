import { type PdfPageText, type PdfShown, renderMediaInvalid, renderPdfPage, renderPdfPassword, renderPdfRange } from '../render-media'
import { cutUtf8 } from '../window'
import { ToolError } from '@deepseek-ai/dsh-tools'
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api'
import { parsePageRange } from './page-range'

/**
 * The text of a PDF's pages from `pages` on (default: page 1), as many as fit in `budget` bytes
 * (at least one, cut at the budget if it alone is larger). pdf.js is pure JavaScript (no external
 * binary) and is loaded on the first PDF; a document encrypted with an empty user password (only
 * the owner's restricts it) opens like any other, one that needs a password is refused.
 * It parses on this thread: the bound on its work is `readMediaMaxBytes` and the page budget.
 */
export async function pdfText(bytes: Uint8Array, path: string, pages: string | undefined, budget: number): Promise<PdfShown> {
  const range = pages === undefined ? { first: 1 } : parsePageRange(pages)
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs')
  // pdf.js takes the buffer over (it may detach it): it gets a copy.
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: true, verbosity: 0,
  })
  try {
    const document = await opened(task.promise, path)
    const pageCount = document.numPages
    if (range === undefined || range.first > pageCount || (range.last ?? 0) > pageCount) {
      throw new ToolError('INVALID_ARGUMENTS', renderPdfRange(path, pages ?? '', pageCount))
    }
    const shown = await pagesWithin(document, range.first, range.last ?? pageCount, budget, path)
    return { path, pageCount, pages: shown }
  } finally {
    await task.destroy()
  }
}

async function pagesWithin(document: PDFDocumentProxy, first: number, last: number, budget: number, path: string): Promise<PdfPageText[]> {
  const shown: PdfPageText[] = []
  let used = 0
  for (let number = first; number <= last; number++) {
    const text = await pageText(document, number, path)
    // A page costs its whole block (marker, and the note of a page with no text), so that a
    // document of thousands of empty pages is parsed and listed only as far as the budget.
    const bytes = Buffer.byteLength(renderPdfPage({ number, text }), 'utf8') + 2
    if (shown.length > 0 && used + bytes > budget) break
    if (bytes > budget) {
      shown.push({ number, text: cutUtf8(text, budget), cut: true })
      break
    }
    shown.push({ number, text })
    used += bytes
  }
  return shown
}

/** A page's text items in content order, a line feed where pdf.js saw a line end. */
async function pageText(document: PDFDocumentProxy, number: number, path: string): Promise<string> {
  const content = await opened(document.getPage(number).then((page) => page.getTextContent()), path)
  let text = ''
  for (const item of content.items) {
    if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '')
  }
  return text
}

/** pdf.js' failures as the typed errors of a read that name the file. */
async function opened<T>(work: Promise<T>, path: string): Promise<T> {
  try {
    return await work
  } catch (error) {
    const name = (error as { name?: unknown } | undefined)?.name
    if (name === 'PasswordException') throw new ToolError('PDF_PASSWORD_REQUIRED', renderPdfPassword(path), { cause: error })
    const reason = error instanceof Error ? error.message : String(error)
    throw new ToolError('MEDIA_INVALID', renderMediaInvalid(path, 'PDF', reason), { cause: error })
  }
}
