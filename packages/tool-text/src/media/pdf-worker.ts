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
// Resolved here, where pdf.js is a dependency: the data: module cannot resolve a bare name.
const PDFJS = pathToFileURL(createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.mjs')).href
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
      workerData: { pdfjs: PDFJS, maxDecodedBytes: bounds.maxDecodedBytes },
      resourceLimits: { maxOldGenerationSizeMb: bounds.maxHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    })
    this.worker.on('message', (reply: PdfReply) => this.settle()?.resolve(reply))
    this.worker.on('error', (error) => this.end(error))
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()))
    this.worker.on('exit', (code) => this.end(new Error(`the PDF thread exited with code ${code}`)))
    this.ready = this.next()
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

// One idle thread is kept between reads, since starting one and loading pdf.js on it costs more
// than reading a short document; concurrent reads start threads of their own.
const idle: PdfWorker[] = []

/** A thread started with `bounds`: the idle one when it has them, else a new one. */
export function takePdfWorker(bounds: PdfWorkerBounds): PdfWorker {
  const index = idle.findIndex((worker) => worker.alive
    && worker.bounds.maxDecodedBytes === bounds.maxDecodedBytes && worker.bounds.maxHeapMb === bounds.maxHeapMb)
  const worker = index >= 0 ? idle.splice(index, 1)[0]! : new PdfWorker(bounds)
  worker.hold(true)
  return worker
}

/** Keeps a thread that finished its read cleanly as the idle one, or stops it. */
export function returnPdfWorker(worker: PdfWorker): void {
  const kept = idle.filter((other) => other.alive)
  idle.length = 0
  idle.push(...kept)
  if (worker.alive && idle.length === 0) {
    worker.hold(false)
    idle.push(worker)
  } else {
    worker.end(new Error('the PDF thread was not kept'))
  }
}
