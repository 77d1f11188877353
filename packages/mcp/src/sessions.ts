export interface SessionLimits {
  /** A session with no request open for this long is closed. */
  idleMs: number
  /** Most sessions at once, counting those still initializing. */
  max: number
}

export type CloseReason = 'idle' | 'evicted'

interface Entry<T> {
  value: T
  close: (reason: CloseReason) => void
  open: number
  timer: NodeJS.Timeout | undefined
  /** Who opened it (its bearer token, `undefined` under `auth: none`): its own idle sessions go first. */
  opener: string | undefined
}

/**
 * The live HTTP sessions, in least-recently-used order (a Map keeps insertion order; every use
 * moves an entry to the end). A session is idle while none of its requests is open: a client that
 * keeps its GET event stream open is connected and never expires, one that went away without a
 * DELETE (every real client tested) is closed `idleMs` after its last request ended.
 * The table is the only owner of a session's transport: once it lets go, nothing keeps the session alive.
 */
export class SessionTable<T> {
  #entries = new Map<string, Entry<T>>()
  #pending = 0

  constructor(private readonly limits: SessionLimits) {}

  get size(): number {
    return this.#entries.size
  }

  /**
   * Claims room for one more session: true when there is room, or enough idle sessions to evict
   * for it and for the claims already pending. False when every session has a request open: the
   * caller refuses the new one. A claim is ended by `add` (which evicts) or `release` (which does
   * not: a request that turns out not to be a valid initialize costs no one their session).
   */
  claim(): boolean {
    const needed = this.#entries.size + this.#pending + 1 - this.limits.max
    if (needed > 0 && this.#idle().length < needed) return false
    this.#pending++
    return true
  }

  release(): void {
    this.#pending--
  }

  /**
   * Turns a claim into a session, evicting idle sessions beyond `max`: the opener's own least
   * recently used ones first, so one agent that keeps opening sessions evicts its own before
   * another agent's. The new session counts as having one request open (its initialize).
   */
  add(id: string, value: T, close: (reason: CloseReason) => void, opener?: string): void {
    this.#pending--
    const excess = Math.max(0, this.#entries.size + this.#pending + 1 - this.limits.max)
    for (const victim of this.#idle(opener).slice(0, excess)) this.close(victim, 'evicted')
    this.#entries.set(id, { value, close, open: 1, timer: undefined, opener })
  }

  /** Ids of the sessions without an open request, least recently used first; `opener`'s own before the others. */
  #idle(opener?: string): string[] {
    const idle = [...this.#entries].filter(([, entry]) => entry.open === 0)
    const own = idle.filter(([, entry]) => entry.opener === opener)
    return [...own, ...idle.filter(([, entry]) => entry.opener !== opener)].map(([id]) => id)
  }

  /** A request of `id` started: its session's value, and the end to call once the response is done. */
  begin(id: string): { value: T; end: () => void } | undefined {
    const entry = this.#entries.get(id)
    if (entry === undefined) return undefined
    this.#entries.delete(id)
    this.#entries.set(id, entry)
    entry.open++
    clearTimeout(entry.timer)
    entry.timer = undefined
    return { value: entry.value, end: () => this.end(id, entry) }
  }

  /** A request of `id` ended (the initialize counted by `add` included); idle time starts at the last. */
  end(id: string, entry = this.#entries.get(id)): void {
    if (entry === undefined || this.#entries.get(id) !== entry) return
    if (--entry.open > 0) return
    entry.timer = setTimeout(() => this.close(id, 'idle'), this.limits.idleMs)
    entry.timer.unref()
  }

  /** Forgets `id` (its transport closed, whoever closed it). */
  delete(id: string): boolean {
    const entry = this.#entries.get(id)
    if (entry === undefined) return false
    clearTimeout(entry.timer)
    return this.#entries.delete(id)
  }

  /** Every session's value, for shutting down. */
  values(): T[] {
    return [...this.#entries.values()].map((entry) => entry.value)
  }

  /** Closes `id` for `reason` as if its time had come (a no-op for an unknown id). */
  close(id: string, reason: CloseReason): void {
    const entry = this.#entries.get(id)
    if (entry === undefined) return
    this.delete(id)
    entry.close(reason)
  }
}
