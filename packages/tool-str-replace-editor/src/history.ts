import type { FsTargetKey, FsVersion } from '@deepseek-ai/dsh-fs'

export interface UndoEntry {
  /** The text the edit replaced (without BOM, line endings as they were). */
  previous: string
  /** The version the edit produced: undo is allowed only while the file is still at it. */
  written: FsVersion
  bytes: number
  seq: number
}

export interface HistoryLimits {
  /** Entries kept per file. */
  depth: number
  /** UTF-8 bytes of previous texts kept per session, over all files. */
  maxBytes: number
}

const encoder = new TextEncoder()

/** The undo stack of one session: per file, newest last, bounded in count and bytes. */
export class EditHistory {
  #files = new Map<FsTargetKey, UndoEntry[]>()
  #bytes = 0
  #seq = 0

  constructor(private readonly limits: HistoryLimits) {}

  push(key: FsTargetKey, previous: string, written: FsVersion): void {
    const bytes = encoder.encode(previous).length
    // A text larger than the whole budget is not kept, and the older entries of that file would
    // restore a state from before it: drop them too rather than undo past it.
    if (bytes > this.limits.maxBytes) return this.forget(key)
    const entries = this.#files.get(key) ?? []
    entries.push({ previous, written, bytes, seq: this.#seq++ })
    this.#files.set(key, entries)
    this.#bytes += bytes
    while (entries.length > this.limits.depth) this.#bytes -= entries.shift()!.bytes
    while (this.#bytes > this.limits.maxBytes) this.#evictOldest()
  }

  peek(key: FsTargetKey): UndoEntry | undefined {
    return this.#files.get(key)?.at(-1)
  }

  /**
   * Removes the newest entry after its undo succeeded at `version`. The file now holds exactly what
   * the entry below wrote, so that entry is re-based on the new version and a second undo works.
   */
  popTo(key: FsTargetKey, version: FsVersion): void {
    const entries = this.#files.get(key)
    const entry = entries?.pop()
    if (entries === undefined || entry === undefined) return
    this.#bytes -= entry.bytes
    const below = entries.at(-1)
    if (below === undefined) this.#files.delete(key)
    else below.written = version
  }

  forget(key: FsTargetKey): void {
    for (const entry of this.#files.get(key) ?? []) this.#bytes -= entry.bytes
    this.#files.delete(key)
  }

  get bytes(): number {
    return this.#bytes
  }

  #evictOldest(): void {
    let oldest: [FsTargetKey, UndoEntry[]] | undefined
    for (const pair of this.#files) if (oldest === undefined || pair[1][0]!.seq < oldest[1][0]!.seq) oldest = pair
    if (oldest === undefined) return
    this.#bytes -= oldest[1].shift()!.bytes
    if (oldest[1].length === 0) this.#files.delete(oldest[0])
  }
}

/** One history per session (weakly held); calls without a session share one history. */
export class EditHistories {
  #sessions = new WeakMap<object, EditHistory>()
  #shared: EditHistory

  constructor(private readonly limits: HistoryLimits) {
    this.#shared = new EditHistory(limits)
  }

  of(session: object | undefined): EditHistory {
    if (session === undefined) return this.#shared
    let history = this.#sessions.get(session)
    if (history === undefined) this.#sessions.set(session, (history = new EditHistory(this.limits)))
    return history
  }
}
