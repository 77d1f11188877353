import { openSandbox, probeSandbox, type SandboxSource } from './connect'
import { SandboxFs } from './sandbox-fs'
import { posix } from 'node:path'

/** How long a sandbox may go unused before its connection is dropped, by default: five minutes. */
export const DEFAULT_FLEET_IDLE_MS = 5 * 60_000
/** How many sandboxes stay connected at once, by default. */
export const DEFAULT_FLEET_MAX_OPEN = 1000

export interface SandboxFleetOptions {
  /** How every sandbox is reached (API key, domain, or the emulator's `debug` + `sandboxUrl`). */
  connection?: Omit<SandboxSource, 'sandbox' | 'sandboxId' | 'template'>
  /** How one sandbox is reached, when not as `connection` says (e.g. each on its own emulator). */
  connectionOf?: (sandboxId: string) => SandboxFleetOptions['connection'] | undefined
  /** Where relative paths resolve from in each sandbox; default its user's home. */
  cwd?: string
  /** Drop a sandbox's connection after this long unused (ms); 0: never. Default `DEFAULT_FLEET_IDLE_MS`. */
  idleMs?: number
  /** Most sandboxes connected at once; the least recently used goes first. Default `DEFAULT_FLEET_MAX_OPEN`. */
  maxOpen?: number
  /** Paths each sandbox remembers for `resolveForMutation`. Default the provider's 4096. */
  maxRememberedPaths?: number
  /** Largest inline publishing command, as `SandboxFs`'s option of that name. */
  inlineCommandMax?: number
  /** The clock idleness is measured on (tests move it by hand). */
  now?: () => number
}

interface Entry {
  fs: Promise<SandboxFs>
  lastUsed: number
  /** Calls running through this entry: a sweep leaves it alone meanwhile. */
  active: number
}

/**
 * Many sandboxes served by one process, each by id, each its own `SandboxFs`. A sandbox is
 * connected (and probed) on first use and dropped after `idleMs` unused or when `maxOpen` others
 * were used since; its next use connects again. Dropping is hygiene, never correctness: the SDK
 * pools its sockets per process (not per sandbox), and every publication takes its lock inside the
 * sandbox, so a provider connected anew is as safe as the one it replaces. What one sandbox costs
 * here is bounded: its `Sandbox` object, a lock table that empties when calls end, and at most
 * `maxRememberedPaths` remembered paths.
 */
export class SandboxFleet {
  readonly #options: SandboxFleetOptions
  readonly #idleMs: number
  readonly #maxOpen: number
  readonly #now: () => number
  /** In order of last use, oldest first (an entry is re-inserted when used). */
  readonly #entries = new Map<string, Entry>()
  readonly #timer: ReturnType<typeof setInterval> | undefined
  #connects = 0

  constructor(options: SandboxFleetOptions = {}) {
    this.#options = options
    this.#idleMs = options.idleMs ?? DEFAULT_FLEET_IDLE_MS
    this.#maxOpen = Math.max(1, options.maxOpen ?? DEFAULT_FLEET_MAX_OPEN)
    this.#now = options.now ?? Date.now
    if (this.#idleMs > 0 && options.now === undefined) {
      // Unref'd: a sweep never keeps the process alive, and nothing correct waits for one.
      this.#timer = setInterval(() => this.sweep(), Math.max(1000, this.#idleMs / 2))
      this.#timer.unref()
    }
  }

  /** Sandboxes connected right now. */
  get open(): number {
    return this.#entries.size
  }

  /** Connections made so far (first uses and reconnections after a drop). */
  get connects(): number {
    return this.#connects
  }

  /** Runs `call` on the sandbox `sandboxId`, connecting it first if it is not connected. */
  async use<T>(sandboxId: string, call: (fs: SandboxFs) => Promise<T>): Promise<T> {
    const entry = this.#touch(sandboxId)
    entry.active++
    this.#evict()
    try {
      return await call(await entry.fs)
    } finally {
      entry.active--
      entry.lastUsed = this.#now()
    }
  }

  /** Drops every sandbox unused for `idleMs` or longer; returns how many it dropped. */
  sweep(): number {
    if (this.#idleMs <= 0) return 0
    const before = this.#now() - this.#idleMs
    let dropped = 0
    for (const [id, entry] of this.#entries) {
      if (entry.active === 0 && entry.lastUsed <= before) {
        this.#entries.delete(id)
        dropped++
      }
    }
    return dropped
  }

  /** Drops every connection and stops the sweeps. Sandboxes are never killed: the fleet only connects to them. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#entries.clear()
  }

  #touch(sandboxId: string): Entry {
    let entry = this.#entries.get(sandboxId)
    if (entry !== undefined) {
      this.#entries.delete(sandboxId)
    } else {
      entry = { fs: this.#connect(sandboxId), lastUsed: this.#now(), active: 0 }
      // A failed connection is not kept: the next use tries again.
      const failed = entry
      failed.fs.catch(() => {
        if (this.#entries.get(sandboxId) === failed) this.#entries.delete(sandboxId)
      })
    }
    entry.lastUsed = this.#now()
    this.#entries.set(sandboxId, entry)
    return entry
  }

  /** Beyond `maxOpen`, the least recently used idle sandboxes go; busy ones stay until their calls end. */
  #evict(): void {
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxOpen) return
      if (entry.active === 0) this.#entries.delete(id)
    }
  }

  async #connect(sandboxId: string): Promise<SandboxFs> {
    this.#connects++
    const connection = this.#options.connectionOf?.(sandboxId) ?? this.#options.connection
    const { sandbox } = await openSandbox({ ...connection, sandboxId })
    const { home } = await probeSandbox(sandbox)
    const cwd = this.#options.cwd === undefined ? home : posix.resolve(home, this.#options.cwd)
    return new SandboxFs({
      sandbox, cwd, home,
      ...(this.#options.inlineCommandMax === undefined ? {} : { inlineCommandMax: this.#options.inlineCommandMax }),
      ...(this.#options.maxRememberedPaths === undefined ? {} : { maxRememberedPaths: this.#options.maxRememberedPaths }),
    })
  }
}
