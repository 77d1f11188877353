import { availableParallelism } from 'node:os'
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads'

/** What a prefilter looks for: the pattern's required literal, as bytes or ignoring ASCII case. */
export interface PrefilterSpec {
  literal: string
  ignoreCase: boolean
  /** A file above this size is left to the caller, which counts it as too large. */
  maxFileBytes: number
}

/** Per path: 0 = read whole and lacks the literal, so it cannot match; 1 = the caller must look. */
export type Verdicts = Uint8Array

/**
 * The worker's whole program, plain CommonJS in a string so that it runs the same from the built
 * package, from a bundle, or from sources. It answers "cannot match" only after one positioned read
 * took the whole file and the literal is not in it; every doubt (open or read failed, file larger
 * than the buffer or the size bound) is "look", so the calling thread, which reads the file again,
 * alone decides what is matched, binary, too large or unreadable. Same open flags as the
 * provider's: no blocking on FIFOs, no following a final symlink.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads')
const { closeSync, openSync, readSync } = require('node:fs')
const { base, flags, literal, ignoreCase, maxFileBytes, scratchBytes, port } = workerData
const bytes = ignoreCase ? undefined : Buffer.from(literal, 'utf8')
const folded = ignoreCase ? new RegExp(literal.replace(/[\\\\^$.*+?()[\\]{}|/-]/g, '\\\\$&'), 'i') : undefined
const scratch = Buffer.allocUnsafe(scratchBytes)
function verdict(path) {
  let fd
  try { fd = openSync(path, flags) } catch { return 1 }
  try {
    const read = readSync(fd, scratch, 0, scratch.length, 0)
    if (read === scratch.length || read > maxFileBytes) return 1
    const view = scratch.subarray(0, read)
    return (bytes ? view.indexOf(bytes) >= 0 : folded.test(view.toString('latin1'))) ? 1 : 0
  } catch { return 1 } finally { closeSync(fd) }
}
port.on('message', ({ id, paths }) => {
  const list = paths.split('\\0')
  const verdicts = new Uint8Array(list.length)
  for (let i = 0; i < list.length; i++) verdicts[i] = verdict(base + '/' + list[i])
  port.postMessage({ id, verdicts }, [verdicts.buffer])
})
`

/** Helper threads for one search: one fewer than the cores (the calling thread walks and reads too), at most 3. */
export function prefilterThreads(): number {
  return Math.max(0, Math.min(availableParallelism() - 1, 3))
}

interface Job {
  port: MessagePort
  size: number
}

/**
 * A few worker threads that read batches of files and drop those that cannot match. A search of a
 * large tree is bound by `open`/`read`/`close` (three quarters of its time, measured): the one
 * thread left for JavaScript cannot issue them faster, and libuv's pool costs more per file than
 * the call itself, so the syscalls are spread over threads that each run a tight synchronous loop.
 * Each worker holds up to `DEPTH` batches, so it has the next one at hand when it ends one; results
 * are taken with `receiveMessageOnPort`, so the calling thread, busy with its own share of the
 * work, never needs an event-loop turn to see them.
 */
export class PrefilterPool {
  static readonly DEPTH = 2
  readonly #workers: Worker[] = []
  readonly #ports: MessagePort[] = []
  readonly #held = new Map<MessagePort, number>()
  readonly #jobs = new Map<number, Job>()
  readonly #done = new Map<number, Verdicts>()
  #nextId = 0
  #broken = false

  /** `base`: the real directory the batches' paths are relative to. */
  constructor(threads: number, base: string, spec: PrefilterSpec, flags: number, scratchBytes: number) {
    for (let i = 0; i < threads; i++) {
      const { port1, port2 } = new MessageChannel()
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...spec, base, flags, scratchBytes, port: port2 }, transferList: [port2] })
      worker.on('error', () => this.#fail())
      worker.on('exit', () => this.#fail())
      this.#workers.push(worker)
      this.#ports.push(port1)
      this.#held.set(port1, 0)
    }
  }

  /** Hands `paths` to the least busy worker: the job's id, or `undefined` when all are full. */
  start(paths: string[]): number | undefined {
    if (this.#broken) return undefined
    this.#collect()
    let port: MessagePort | undefined
    for (const candidate of this.#ports) if (this.#held.get(candidate)! < (port === undefined ? PrefilterPool.DEPTH : this.#held.get(port)!)) port = candidate
    if (port === undefined) return undefined
    const id = this.#nextId++
    this.#held.set(port, this.#held.get(port)! + 1)
    this.#jobs.set(id, { port, size: paths.length })
    // One string per batch: a structured clone of many small strings cost more than the split.
    port.postMessage({ id, paths: paths.join('\0') })
    return id
  }

  /** The verdicts of job `id` if it is over (taken without waiting), else `undefined`. */
  poll(id: number): Verdicts | undefined {
    this.#collect()
    const verdicts = this.#done.get(id)
    if (verdicts !== undefined) this.#done.delete(id)
    return verdicts
  }

  /** The verdicts of job `id`, waiting in short sleeps that leave the event loop free. */
  async wait(id: number): Promise<Verdicts> {
    for (;;) {
      const verdicts = this.poll(id)
      if (verdicts !== undefined) return verdicts
      await new Promise((resume) => setTimeout(resume, 1))
    }
  }

  async close(): Promise<void> {
    this.#broken = true
    await Promise.all(this.#workers.map((worker) => worker.terminate()))
  }

  #collect(): void {
    for (const port of this.#ports) {
      if (this.#held.get(port) === 0) continue
      for (;;) {
        const message = receiveMessageOnPort(port)?.message as { id: number; verdicts: Verdicts } | undefined
        if (message === undefined) break
        this.#finish(message.id, message.verdicts)
      }
    }
  }

  #finish(id: number, verdicts: Verdicts): void {
    const job = this.#jobs.get(id)
    if (job === undefined) return
    this.#jobs.delete(id)
    this.#held.set(job.port, this.#held.get(job.port)! - 1)
    this.#done.set(id, verdicts)
  }

  /** A worker that failed or exited answers "look" for what it held; no batch is given out again. */
  #fail(): void {
    this.#broken = true
    for (const [id, job] of [...this.#jobs]) this.#finish(id, new Uint8Array(job.size).fill(1))
  }
}

interface Batch {
  paths: string[]
  job?: number
  verdicts?: Verdicts
}

/** Batches of paths handed out to the pool or decided here, fed back in walk order. */
export class PrefilterQueue {
  static readonly BATCH = 256
  /** Batches decided ahead of the oldest undecided one, at most; beyond, the queue waits for it. */
  static readonly AHEAD = 64
  readonly #queue: Batch[] = []
  #batch: string[] = []
  #decided = 0
  #looked = 0

  /**
   * `decideHere` is the same test run on the calling thread (when every worker is busy); `feed`
   * gets each path that may match, in order, and answers false to stop; `pause` gives a promise
   * when the caller's synchronous slice is over (feeding many files must still yield).
   */
  constructor(
    private readonly pool: PrefilterPool,
    private readonly base: string,
    private readonly decideHere: (location: string) => 0 | 1,
    private readonly feed: (path: string) => boolean | Promise<boolean>,
    private readonly pause: () => Promise<void> | undefined,
  ) {}

  /**
   * True once a quarter or more of the files decided so far (here or by a worker) may match: each of those is read twice,
   * and the workers save less than that costs. The caller then finishes the queue and goes on alone.
   */
  get wasteful(): boolean {
    return this.#decided >= 4 * PrefilterQueue.BATCH && this.#looked * 4 >= this.#decided
  }

  /** Adds one path (relative to `base`); false once `feed` said stop. */
  push(path: string): boolean | Promise<boolean> {
    this.#batch.push(path)
    if (this.#batch.length < PrefilterQueue.BATCH) return true
    this.#close()
    return this.#drain(false)
  }

  /** Everything pushed, fed; false when `feed` said stop. */
  finish(): Promise<boolean> | boolean {
    if (this.#batch.length > 0) this.#close()
    return this.#drain(true)
  }

  #close(): void {
    const paths = this.#batch
    this.#batch = []
    const job = this.pool.start(paths)
    if (job !== undefined) return void this.#queue.push({ paths, job })
    const verdicts = Uint8Array.from(paths, (path) => this.decideHere(`${this.base}/${path}`))
    this.#count(verdicts)
    this.#queue.push({ paths, verdicts })
  }

  /** Feeds the decided batches at the head; waits for the head when `all` or when too far ahead. */
  #drain(all: boolean): boolean | Promise<boolean> {
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!
      if (head.verdicts === undefined) {
        head.verdicts = this.pool.poll(head.job!)
        if (head.verdicts !== undefined) this.#count(head.verdicts)
      }
      if (head.verdicts === undefined) {
        if (!all && this.#queue.length <= PrefilterQueue.AHEAD) return true
        return this.pool.wait(head.job!).then((verdicts) => {
          head.verdicts = verdicts
          this.#count(verdicts)
          return this.#drain(all)
        })
      }
      this.#queue.shift()
      for (let i = 0; i < head.paths.length; i++) {
        if (head.verdicts[i] === 0) continue
        const wait = this.pause()
        if (wait !== undefined) return wait.then(() => this.#continue(head, i, all))
        const answer = this.feed(head.paths[i]!)
        if (answer instanceof Promise) return answer.then((go) => go && this.#continue(head, i + 1, all))
        if (!answer) return false
      }
    }
    return true
  }

  #count(verdicts: Verdicts): void {
    this.#decided += verdicts.length
    for (const verdict of verdicts) this.#looked += verdict
  }

  /** The rest of a batch after a wait, then the rest of the queue. */
  #continue(batch: Batch, from: number, all: boolean): boolean | Promise<boolean> {
    this.#queue.unshift({ paths: batch.paths.slice(from), verdicts: batch.verdicts!.subarray(from) })
    return this.#drain(all)
  }
}
