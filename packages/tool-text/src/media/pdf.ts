import { type PageArgument, type PdfPageText, type PdfShown, type PdfCost, renderMediaInvalid, renderPdfPage, renderPdfPassword, renderPdfRange, renderPdfTooCostly } from '../render-media'
import { cutUtf8 } from '../window'
import { ToolError } from '@deepseek-ai/dsh-tools'
import type { MediaLimits } from './config'
import type { MediaOptions } from './show'
import { parsePageRange } from './page-range'
import { type PdfReply, PdfThreads, type PdfWorker } from './pdf-worker'

/** The thread's time ran out (`readPdfMaxMs`): the reason it was ended with. */
class TimeSpent extends Error {}

/** One read's PDF thread, the read's bounds, and what a failure names. */
interface PdfCall {
  worker: PdfWorker
  path: string
  limits: MediaLimits
  signal: AbortSignal | undefined
  /** The first page asked for, and the page being parsed (undefined while the file opens). */
  first: number
  page?: number
  /** How the calling tool names pages, for the texts that send the model to other pages. */
  argument: PageArgument
}

/**
 * The text of a PDF's pages from `pages` on (default: page 1), as many as fit in `budget` bytes
 * (at least one, cut at the budget if it alone is larger). pdf.js is pure JavaScript (no external
 * binary); a document encrypted with an empty user password (only the owner's restricts it) opens
 * like any other, one that needs a password is refused.
 * pdf.js runs on a thread of its own (pdf-worker.ts), bounded in decoded bytes, heap and time
 * (`readPdfMaxDecodedBytes`, `readPdfMaxHeapMb`, `readPdfMaxMs`), and ended when `signal` aborts:
 * a decompression bomb is refused without stalling the event loop.
 */
export async function pdfText(bytes: Uint8Array, path: string, options: MediaOptions): Promise<PdfShown> {
  const { pages, budget, limits, signal, pdfThreads: threads, pageArgument: argument = 'pages' } = options
  const range = pages === undefined ? { first: 1 } : parsePageRange(pages)
  // Without the plugin's threads, the read's own, ended with it.
  const pool = threads ?? new PdfThreads()
  const worker = await pool.take({ maxDecodedBytes: limits.readPdfMaxDecodedBytes, maxHeapMb: limits.readPdfMaxHeapMb }, signal)
  const call: PdfCall = { worker, path, limits, signal, first: range?.first ?? 1, argument }
  const timer = setTimeout(() => worker.end(new TimeSpent()), limits.readPdfMaxMs)
  const abort = () => worker.end(signal?.reason)
  signal?.addEventListener('abort', abort, { once: true })
  let clean = false
  try {
    await ask(call, undefined)
    // pdf.js takes the buffer over (it may detach it): the thread gets a copy, moved, not cloned.
    const data = new Uint8Array(bytes)
    const pageCount = (await ask(call, { open: data }, [data.buffer])).pageCount!
    if (range === undefined || range.first > pageCount || (range.last ?? 0) > pageCount) {
      throw new ToolError('INVALID_ARGUMENTS', renderPdfRange(path, pages ?? '', pageCount, argument))
    }
    const shown = await pagesWithin(call, range.last ?? pageCount, budget)
    await ask(call, { close: true })
    clean = true
    return { path, pageCount, pages: shown }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', abort)
    // A thread that failed may hold half a document: only one that closed its document is kept.
    // Its end is awaited, so that a file that is refused again and again never has the memory of
    // two threads at once.
    if (!clean) {
      worker.end(new Error('the PDF read failed'))
      await worker.exited
    }
    pool.give(worker)
    if (threads === undefined) pool.dispose()
  }
}

async function pagesWithin(call: PdfCall, last: number, budget: number): Promise<PdfPageText[]> {
  const shown: PdfPageText[] = []
  let used = 0
  for (let number = call.first; number <= last; number++) {
    call.page = number
    const text = (await ask(call, { page: number })).text!
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

/** One request to the thread (none: wait until it is ready), its failures as typed errors. */
async function ask(call: PdfCall, message: unknown, transfer?: ArrayBuffer[]): Promise<PdfReply> {
  let reply: PdfReply
  try {
    reply = await (message === undefined ? call.worker.ready : call.worker.request(message, transfer))
  } catch (error) {
    throw ended(call, error)
  }
  if (reply.error !== undefined) throw failed(call, reply)
  return reply
}

/** pdf.js' failures as the typed errors of a read that name the file. */
function failed(call: PdfCall, reply: PdfReply): ToolError {
  const { name, message } = reply.error!
  const cause = Object.assign(new Error(message), { name })
  if ((reply.decoded ?? 0) > call.limits.readPdfMaxDecodedBytes) return tooCostly(call, 'decoded', cause)
  if (name === 'PasswordException') return new ToolError('PDF_PASSWORD_REQUIRED', renderPdfPassword(call.path), { cause })
  return new ToolError('MEDIA_INVALID', renderMediaInvalid(call.path, 'PDF', message), { cause })
}

/** Why the thread stopped before it answered: its heap limit, the time bound, the caller's abort. */
function ended(call: PdfCall, error: unknown): unknown {
  if (call.signal?.aborted === true) return call.signal.reason
  if (error instanceof TimeSpent) return tooCostly(call, 'time', error)
  if ((error as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return tooCostly(call, 'heap', error)
  const reason = error instanceof Error ? error.message : String(error)
  return new ToolError('MEDIA_INVALID', renderMediaInvalid(call.path, 'PDF', reason), { cause: error })
}

function tooCostly(call: PdfCall, cost: PdfCost, cause: unknown): ToolError {
  const limit = { decoded: call.limits.readPdfMaxDecodedBytes, heap: call.limits.readPdfMaxHeapMb, time: call.limits.readPdfMaxMs }[cost]
  return new ToolError('PDF_TOO_COSTLY', renderPdfTooCostly({ path: call.path, first: call.first, page: call.page, cost, limit, argument: call.argument }), { cause })
}
