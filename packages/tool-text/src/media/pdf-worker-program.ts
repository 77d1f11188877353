/**
 * The program of the thread that runs pdf.js, as ES module source. It is handed to the Worker as a
 * `data:` URL rather than as a file so that it runs the same from the TypeScript sources (vitest,
 * tsx), from the bundled `lib/` and from the benchmark's bundle: no path of a worker file to find
 * next to whichever of those is running. A `data:` module resolves only absolute specifiers, so the
 * caller passes pdf.js' file URL in `workerData.pdfjs`.
 *
 * Protocol, one request at a time: `{ open: bytes }` answers `{ pageCount }`; `{ page: n }`
 * answers `{ text }`; `{ close: true }` answers `{ closed: true }`. A failure answers
 * `{ error: { name, message }, decoded }`, `decoded` being the bytes counted against the budget.
 *
 * The decoded-bytes budget: pdf.js inflates a stream into a `Uint8Array` it grows by doubling, so
 * every fresh buffer it makes is counted (`new Uint8Array(length)`; views of existing memory cost
 * nothing), and the allocation that would pass `workerData.maxDecodedBytes` since the document was
 * opened throws instead. V8's heap limit (the Worker's `resourceLimits`) does not cover these
 * buffers, which live outside the heap: this count is their bound.
 */
export const PDF_WORKER_PROGRAM = `
import { parentPort, workerData } from 'node:worker_threads'

const { pdfjs: pdfjsUrl, maxDecodedBytes } = workerData
let decoded = 0
const NativeUint8Array = Uint8Array
globalThis.Uint8Array = new Proxy(NativeUint8Array, {
  construct(target, args, newTarget) {
    if (typeof args[0] === 'number') {
      if (decoded + args[0] > maxDecodedBytes) {
        decoded += args[0]
        throw new RangeError('decoded-bytes budget exceeded')
      }
      decoded += args[0]
    }
    return Reflect.construct(target, args, newTarget)
  },
})
// pdf.js inflates some streams with the native DecompressionStream when there is one, into chunks
// this count would not see; without it, it falls back to its own inflater, which is counted.
delete globalThis.DecompressionStream
const pdfjs = await import(pdfjsUrl)
let task
let document

async function answer(message) {
  if (message.open !== undefined) {
    decoded = 0
    task = pdfjs.getDocument({
      data: message.open, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: true, verbosity: 0,
    })
    document = await task.promise
    return { pageCount: document.numPages }
  }
  if (message.page !== undefined) {
    const page = await document.getPage(message.page)
    const content = await page.getTextContent()
    let text = ''
    for (const item of content.items) {
      if ('str' in item) text += item.str + (item.hasEOL ? '\\n' : '')
    }
    page.cleanup()
    return { text }
  }
  await task?.destroy()
  task = undefined
  document = undefined
  return { closed: true }
}

parentPort.on('message', (message) => {
  answer(message).then(
    (reply) => parentPort.postMessage(reply),
    (error) => parentPort.postMessage({ error: { name: String(error?.name ?? 'Error'), message: String(error?.message ?? error) }, decoded }),
  )
})
parentPort.postMessage({ ready: true })
`
