import { fsError, throwIfAborted } from './errors'

/** The process-wide budget's capacity when no provider configures one. */
export const DEFAULT_MEMORY_BUDGET_BYTES = 2 * 1024 * 1024 * 1024

/** What reading a file whole holds at once, per byte of file: the bytes and the decoded text. */
export const TEXT_COST_PER_BYTE = 2

/**
 * What an edit holds at once, per byte of file: old bytes and text, new text and bytes. An edit that
 * grows the file reserves this per byte of its result before building it (`Reservation`,
 * `planReserved`), and is bounded by `maxTextBytes` as well.
 */
export const EDIT_COST_PER_BYTE = 4

interface Waiter {
  bytes: number
  grant: () => void
}

/**
 * Bytes of memory that whole-file operations (reading a file into a string, an edit's old and new
 * text) reserve before they allocate. Reservations are granted in arrival order: one that does not
 * fit waits until earlier ones are released, so concurrent large edits run one after another
 * instead of together. A reservation larger than the whole budget fails `FS_TOO_LARGE` at once.
 */
export class MemoryBudget {
  #capacity: number
  #inUse = 0
  #queue: Waiter[] = []

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  get capacity(): number {
    return this.#capacity
  }

  set capacity(bytes: number) {
    this.#capacity = bytes
    this.#drain()
  }

  get inUse(): number {
    return this.#inUse
  }

  /** Reservations waiting for memory to be released. */
  get waiting(): number {
    return this.#queue.length
  }

  /**
   * Waits until `bytes` fit, then reserves them; the returned function gives them back (once).
   * `what` names the operation in the error ("editing"); `path` is what it works on.
   */
  async reserve(bytes: number, what: string, path?: string, signal?: AbortSignal): Promise<() => void> {
    throwIfAborted(signal, path)
    if (bytes > this.capacity) {
      throw fsError('FS_TOO_LARGE', {
        path,
        reason: `needs about ${mib(bytes)} of memory for ${what} at once, more than this process's budget of ${mib(this.capacity)}; `
          + 'nothing was changed. Work on a smaller file, or raise the provider\'s memoryBudgetBytes',
      })
    }
    if (this.#queue.length > 0 || this.#inUse + bytes > this.capacity) await this.#wait(bytes, path, signal)
    else this.#inUse += bytes
    let released = false
    return () => {
      if (released) return
      released = true
      this.#inUse -= bytes
      this.#drain()
    }
  }

  /** `reserve`, run `task`, release: the usual shape. */
  async with<T>(bytes: number, what: string, path: string | undefined, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    const release = await this.reserve(bytes, what, path, signal)
    try {
      return await task()
    } finally {
      release()
    }
  }

  #wait(bytes: number, path: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        grant: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        },
      }
      const onAbort = () => {
        this.#queue.splice(this.#queue.indexOf(waiter), 1)
        this.#drain()
        reject(fsError('FS_ABORTED', { reason: 'while waiting for memory', cause: signal!.reason, path }))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#queue.push(waiter)
    })
  }

  #drain(): void {
    while (this.#queue.length > 0 && this.#inUse + this.#queue[0]!.bytes <= this.capacity) {
      const waiter = this.#queue.shift()!
      this.#inUse += waiter.bytes
      waiter.grant()
    }
  }
}

// One per process, shared by every copy of this package, as `FsError`'s marker is.
const processKey = Symbol.for('@deepseek-ai/dsh-fs/MemoryBudget')

/**
 * The budget every provider in this process shares, `DEFAULT_MEMORY_BUDGET_BYTES` unless one is
 * configured. With several providers configured differently, the smallest capacity holds for all.
 */
export function processMemoryBudget(capacity?: number): MemoryBudget {
  const holder = globalThis as { [processKey]?: { budget: MemoryBudget; configured: boolean } }
  const shared = (holder[processKey] ??= { budget: new MemoryBudget(DEFAULT_MEMORY_BUDGET_BYTES), configured: false })
  if (capacity !== undefined && (!shared.configured || capacity < shared.budget.capacity)) {
    shared.budget.capacity = capacity
    shared.configured = true
  }
  return shared.budget
}

function mib(bytes: number): string {
  return `${Math.ceil(bytes / 1024 / 1024)} MiB`
}
