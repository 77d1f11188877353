import { deflatedPdf } from '@deepseek-ai/dsh-test-kit'
import { ToolError } from '@deepseek-ai/dsh-tools'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from '../src/media/config'
import { showMedia } from '../src/media/show'

// 256 MiB of spaces deflate to about 260 KB: the file is small, its one page is not.
const bomb = deflatedPdf(Buffer.alloc(256 * 1024 * 1024, 0x20))
const hello = deflatedPdf('BT /F1 12 Tf 72 720 Td (Hello from page one) Tj ET')

async function refusal(bytes: Buffer, limits: Partial<MediaLimits>, signal?: AbortSignal): Promise<ToolError> {
  const options = { limits: { ...DEFAULT_MEDIA_LIMITS, ...limits }, budget: 64 * 1024, ...(signal === undefined ? {} : { signal }) }
  const error = await showMedia(bytes, 'bomb.pdf', options).then(() => undefined, (thrown: unknown) => thrown)
  expect(error).toBeInstanceOf(ToolError)
  return error as ToolError
}

describe('PDF text on its own thread', () => {
  it('shows the text of a deflated page', async () => {
    const result = await showMedia(hello, 'hello.pdf', { limits: DEFAULT_MEDIA_LIMITS, budget: 64 * 1024 })
    expect(result?.content[0]?.text).toContain('Hello from page one')
  })

  it('refuses a decompression bomb by its decoded bytes, without stalling the event loop or keeping its memory', async () => {
    expect(bomb.length).toBeLessThan(400 * 1024)
    await showMedia(hello, 'hello.pdf', { limits: DEFAULT_MEDIA_LIMITS, budget: 64 * 1024 }) // the thread is started
    const delay = monitorEventLoopDelay({ resolution: 10 })
    const before = process.memoryUsage().rss
    let peak = before
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 10)
    delay.enable()
    try {
      const error = await refusal(bomb, {})
      expect(error.code).toBe('PDF_TOO_COSTLY')
      expect(error.message).toBe('page 1 of the PDF bomb.pdf decodes to more than the 67,108,864 bytes a PDF read inflates (readPdfMaxDecodedBytes), '
        + 'so nothing was shown (likely a decompression bomb or a malformed file). Ask the user for a text copy, or raise readPdfMaxDecodedBytes if the file is trusted')
    } finally {
      delay.disable()
      clearInterval(sampler)
    }
    // Before the thread, this page stalled the loop up to 0.45 s and took 213 MB more. The bounds
    // are generous (other processes share the machine): they catch a stall, not a slow run.
    expect(delay.max / 1e6).toBeLessThan(150)
    expect(peak - before).toBeLessThan(64 * 1024 * 1024 + 150 * 1024 * 1024)
    // The next read works (a fresh thread), and shows its page.
    const result = await showMedia(hello, 'hello.pdf', { limits: DEFAULT_MEDIA_LIMITS, budget: 64 * 1024 })
    expect(result?.content[0]?.text).toContain('Hello from page one')
  }, 60_000)

  it('refuses a PDF whose parsing passes readPdfMaxMs, naming the bound', async () => {
    const error = await refusal(bomb, { readPdfMaxMs: 200, readPdfMaxDecodedBytes: 1024 * 1024 * 1024 })
    expect(error.code).toBe('PDF_TOO_COSTLY')
    expect(error.message).toContain('takes longer than the 200 ms a PDF read may run (readPdfMaxMs)')
  }, 60_000)

  it('refuses a PDF whose parsing passes the thread\'s heap limit (readPdfMaxHeapMb)', async () => {
    // 8 MB of heap is less than pdf.js needs to load: the thread dies with ERR_WORKER_OUT_OF_MEMORY.
    const error = await refusal(hello, { readPdfMaxHeapMb: 8 })
    expect(error.code).toBe('PDF_TOO_COSTLY')
    expect(error.message).toContain('needs more than the 8 MB of memory a PDF read may use (readPdfMaxHeapMb)')
    expect((error.cause as { code?: string }).code).toBe('ERR_WORKER_OUT_OF_MEMORY')
  }, 60_000)

  it('ends the parsing when the call is aborted, with the abort\'s reason', async () => {
    const controller = new AbortController()
    const reason = new Error('the call was aborted')
    setTimeout(() => controller.abort(reason), 100)
    const options = { limits: { ...DEFAULT_MEDIA_LIMITS, readPdfMaxDecodedBytes: 1024 * 1024 * 1024 }, budget: 64 * 1024, signal: controller.signal }
    const started = Date.now()
    await expect(showMedia(bomb, 'bomb.pdf', options)).rejects.toBe(reason)
    // The bomb alone runs for seconds; the abort ends it at once (a generous bound, not a speed claim).
    expect(Date.now() - started).toBeLessThan(5_000)
  }, 60_000)

  it('names the pages before the costly one, which can still be read', async () => {
    const { renderPdfTooCostly } = await import('../src/render-media')
    expect(renderPdfTooCostly({ path: 'a.pdf', first: 2, page: 5, cost: 'time', limit: 10_000 })).toBe(
      'page 5 of the PDF a.pdf takes longer than the 10,000 ms a PDF read may run (readPdfMaxMs), so nothing was shown '
      + '(likely a decompression bomb or a malformed file). Pages 2-4 can be read with pages: "2-4"; for the rest, ask the user for a text copy, or raise readPdfMaxMs if the file is trusted')
    // The editor names pages with view_range, and a single page as a range of one.
    expect(renderPdfTooCostly({ path: 'a.pdf', first: 2, page: 3, cost: 'time', limit: 10_000, argument: 'view_range' })).toContain(
      'Page 2 can be read with view_range: [2, 2]; for the rest')
    expect(renderPdfTooCostly({ path: 'a.pdf', first: 2, page: 3, cost: 'time', limit: 10_000 })).toContain('Page 2 can be read with pages: "2"; for the rest')
  })
})
