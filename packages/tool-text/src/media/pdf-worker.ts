import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { PDF_WORKER_PROGRAM } from './pdf-worker-program'

/** The bounds a PDF thread is started with (the time bound is the caller's). */
export interface PdfWorkerBounds {
  maxDecodedBytes: number
  maxHeapMb: number
}

/** What the PDF thread answers (see the protocol in pdf-worker-program.ts). */
export interface PdfReply {
  ready?: true
  pageCount?: number
  text?: string
  closed?: true
  error?: { name: string; message: string }
  decoded?: number
}

const PROGRAM = new URL(`data:text/javascript,${encodeURIComponent(PDF_WORKER_PROGRAM)}`)
/**
 * Where pdf.js is, resolved here, where it is a dependency (the data: module cannot resolve a bare
 * name); at each thread's start, not at import, so a start of dsh that shows no PDF never looks.
 */
function pdfjsUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.mjs')).href
}
// The young generation is fixed (the old generation's limit is the configured bound): at 16 MB its
// scavenges cost B16 about 15 % per page, at 32 MB it is within the noise of parsing on the loop.
const YOUNG_GENERATION_MB = 32

/**
 * pdf.js on a thread of its own, so that a costly document stalls that thread, not the event loop,
 * and can be ended at any point. One request at a time; once it has failed or been ended, every
 * request is refused with the reason it ended (`code` ERR_WORKER_OUT_OF_MEMORY for its heap limit).
 */
export class PdfWorker {
  private readonly worker: Worker
  private pending: { resolve: (reply: PdfReply) => void; reject: (error: unknown) => void } | undefined
  private gone: unknown
  /** Resolves when pdf.js is loaded on the thread. */
  readonly ready: Promise<PdfReply>
  /** Resolves when the thread has stopped and its memory is released. */
  readonly exited: Promise<void>

  constructor(readonly bounds: PdfWorkerBounds) {
    this.worker = new Worker(PROGRAM, {
      workerData: { pdfjs: pdfjsUrl(), maxDecodedBytes: bounds.maxDecodedBytes },
      resourceLimits: { maxOldGenerationSizeMb: bounds.maxHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    })
    this.worker.on('message', (reply: PdfReply) => this.settle()?.resolve(reply))
    this.worker.on('error', (error) => this.end(error))
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()))
    this.worker.on('exit', (code) => this.end(new Error(`the PDF thread exited with code ${code}`)))
    this.ready = this.next()
    // A thread ended before anyone waited for it to load (a pool's spare) is no unhandled failure.
    this.ready.catch(() => {})
  }

  get alive(): boolean {
    return this.gone === undefined
  }

  request(message: unknown, transfer: ArrayBuffer[] = []): Promise<PdfReply> {
    const reply = this.next()
    if (this.alive) this.worker.postMessage(message, transfer)
    return reply
  }

  /** Stops the thread; the request in flight (and any later one) is refused with `reason`. */
  end(reason: unknown): void {
    if (this.gone === undefined) {
      this.gone = reason
      void this.worker.terminate()
    }
    this.settle()?.reject(this.gone)
  }

  /** An idle thread does not keep the process alive; a busy one does. */
  hold(busy: boolean): void {
    if (busy) this.worker.ref()
    else this.worker.unref()
  }

  private next(): Promise<PdfReply> {
    return new Promise((resolve, reject) => {
      if (this.alive) this.pending = { resolve, reject }
      else reject(this.gone)
    })
  }

  private settle(): PdfWorker['pending'] {
    const pending = this.pending
    this.pending = undefined
    return pending
  }
}

/**
 * The PDF threads of one tool plugin. At most `max` parse at once, each within its own bounds, so
 * the memory of concurrent reads is bounded too: a read beyond them waits for a thread (or for its
 * abort). One thread that finished cleanly is kept idle for the next read, since starting one and
 * loading pdf.js on it costs more than reading a short document; `dispose` ends it.
 */
export class PdfThreads {
  #idle: PdfWorker | undefined
  #busy = 0
  readonly #waiting: (() => void)[] = []

  constructor(readonly max = 2) {}

  /** A thread started with `bounds` (the idle one when it has them), once fewer than `max` are busy. */
  async take(bounds: PdfWorkerBounds, signal?: AbortSignal): Promise<PdfWorker> {
    await this.#turn(signal)
    const idle = this.#idle
    this.#idle = undefined
    const same = idle?.alive === true && idle.bounds.maxDecodedBytes === bounds.maxDecodedBytes && idle.bounds.maxHeapMb === bounds.maxHeapMb
    if (idle !== undefined && !same) idle.end(new Error('the PDF thread was not kept'))
    const worker = same ? idle! : new PdfWorker(bounds)
    worker.hold(true)
    return worker
  }

  /** Gives a thread back: kept idle when it is alive and none is, else ended; the next waiting read goes on. */
  give(worker: PdfWorker): void {
    if (worker.alive && this.#idle === undefined) {
      worker.hold(false)
      this.#idle = worker
    } else {
      worker.end(new Error('the PDF thread was not kept'))
    }
    this.#busy--
    this.#waiting.shift()?.()
  }

  dispose(): void {
    this.#idle?.end(new Error('the PDF threads were disposed'))
    this.#idle = undefined
  }

  #turn(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted()
    if (this.#busy < this.max) {
      this.#busy++
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', abort)
        this.#busy++
        resolve()
      }
      const abort = () => {
        this.#waiting.splice(this.#waiting.indexOf(go), 1)
        reject(signal!.reason)
      }
      this.#waiting.push(go)
      signal?.addEventListener('abort', abort, { once: true })
    })
  }
}
