import type { Context } from 'cordis'
import { posix } from 'node:path'
// Imports as a provider of its own would write them: `./index` is `@deepseek-ai/dsh-fs`, `./kit` its `/kit`.
import {
  FileSystem, FsError, fsError, type FsDirEntry, type FsDirListing, type FsEditOutcome, type FsEditRequest, type FsInfo, type FsListOptions, type FsRemoveOutcome, type FsRenameOutcome,
  type FsReadOptions, type FsResolveOptions, type FsTarget, type FsTargetKey, type FsVersion, type FsWriteOutcome,
  type FsEditOptions, type FsRemoveOptions, type FsRenameOptions, type FsWriteOptions,
} from './index'
import {
  checkEditGuard, checkMoveDestination, checkRemoveGuard, checkWriteGuard, checkWriteSize, decodeText, DEFAULT_MAX_TEXT_BYTES, EDIT_COST_PER_BYTE, editOutcome, KeyedLock, listingWindow, type MemoryBudget,
  planEdit, planEdits, type PlannedEdit, type PlannedEdits, planReserved, planWrite, processMemoryBudget, publishGuarded, readOptionsOf, Reservation, TEXT_COST_PER_BYTE,
  throwIfAborted, toListing, writeCost,
} from './kit'

/** `readOnly` is a file nobody may write (mode `0444` on a disk): writes and edits are refused, not published. */
type MemoryNode = { type: 'file'; bytes: Uint8Array; version: FsVersion; readOnly?: boolean } | { type: 'directory'; version: FsVersion }

/**
 * The storage behind `MemoryFileSystem`: absolute POSIX paths to files and directories. Tests use it
 * directly as "the outside world" (another process writing, deleting or racing the provider).
 */
export class MemoryVolume {
  #nodes = new Map<string, MemoryNode>([['/', { type: 'directory', version: 'm0' as FsVersion }]])
  #clock = 0
  #beforePublish: (() => Promise<void>)[] = []

  get(path: string): MemoryNode | undefined {
    return this.#nodes.get(path)
  }

  /** Writes a file as an outside party would, creating parents; every write mints a new version. */
  writeFile(path: string, data: string | Uint8Array): void {
    this.mkdir(posix.dirname(path))
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    this.#nodes.set(path, { type: 'file', bytes, version: this.#mint() })
  }

  readFile(path: string): Uint8Array | undefined {
    const node = this.#nodes.get(path)
    return node?.type === 'file' ? node.bytes : undefined
  }

  /** Makes a file read-only (or writable again), as `chmod a-w` would; like any metadata change, a new version. */
  setReadOnly(path: string, readOnly = true): void {
    const node = this.#nodes.get(path)
    if (node?.type !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path })
    this.#nodes.set(path, { ...node, version: this.#mint(), readOnly })
  }

  mkdir(path: string): void {
    const existing = this.#nodes.get(path)
    if (existing?.type === 'directory') return
    if (existing) throw fsError('FS_NOT_DIRECTORY', { path })
    this.mkdir(posix.dirname(path))
    this.#nodes.set(path, { type: 'directory', version: this.#mint() })
  }

  remove(path: string): void {
    for (const key of [...this.#nodes.keys()]) {
      if (key === path || key.startsWith(`${path}/`)) this.#nodes.delete(key)
    }
  }

  children(path: string): string[] {
    const prefix = path === '/' ? '/' : `${path}/`
    return [...this.#nodes.keys()].filter((key) => key !== '/' && key.startsWith(prefix) && !key.slice(prefix.length).includes('/'))
  }

  /** Runs `hook` once, the next time a provider is between its probe and its publication point. */
  beforeNextPublish(hook: () => Promise<void>): void {
    this.#beforePublish.push(hook)
  }

  async publishing(): Promise<void> {
    const hooks = this.#beforePublish.splice(0)
    for (const hook of hooks) await hook()
  }

  #mint(): FsVersion {
    return `m${++this.#clock}` as FsVersion
  }

  /** @internal A file's node under a new name, with a new version (a move changes its ctime on a disk). */
  move(from: string, to: string): FsVersion {
    const node = this.#nodes.get(from)
    if (node?.type !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path: from })
    this.mkdir(posix.dirname(to))
    const version = this.#mint()
    this.#nodes.set(to, { ...node, version })
    this.#nodes.delete(from)
    return version
  }

  /** @internal */
  store(path: string, bytes: Uint8Array): FsVersion {
    this.mkdir(posix.dirname(path))
    const version = this.#mint()
    this.#nodes.set(path, { type: 'file', bytes, version })
    return version
  }
}

export interface MemoryFileSystemConfig {
  /** Where relative paths resolve from. Default `/`. */
  cwd?: string
  /** The storage; share one between providers to model several writers. */
  volume?: MemoryVolume
  /** Largest text a write or an edit may produce. Default `DEFAULT_MAX_TEXT_BYTES`. */
  maxTextBytes?: number
  /** What whole-file reads and edits reserve memory from. Default: the process's budget. */
  memoryBudget?: MemoryBudget
}

/**
 * The reference provider: the whole contract over a `MemoryVolume`, in about a hundred lines that
 * a provider author can copy. It passes `@deepseek-ai/dsh-fs/conformance`.
 */
export class MemoryFileSystem extends FileSystem {
  readonly volume: MemoryVolume
  readonly cwd: string
  private lock = new KeyedLock<FsTargetKey>()
  override readonly maxTextBytes: number
  private budget: MemoryBudget

  constructor(ctx: Context, config: MemoryFileSystemConfig = {}) {
    super(ctx)
    this.volume = config.volume ?? new MemoryVolume()
    this.cwd = config.cwd ?? '/'
    this.maxTextBytes = config.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES
    this.budget = config.memoryBudget ?? processMemoryBudget()
  }

  async resolve(path: string, opts: FsResolveOptions = {}): Promise<FsTarget> {
    throwIfAborted(opts.signal, path)
    if (path.length === 0 || path.includes('\0')) {
      throw fsError('FS_INVALID_PATH', { path })
    }
    const absolute = posix.resolve(opts.cwd ?? this.cwd, path)
    return { targetKey: absolute as FsTargetKey, displayPath: absolute }
  }

  async stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    throwIfAborted(signal, target.displayPath)
    return this.info(target.targetKey)
  }

  async readText(target: FsTarget, opts?: FsReadOptions | AbortSignal): Promise<string> {
    const { signal, decoding } = readOptionsOf(opts)
    const path = target.displayPath
    throwIfAborted(signal, path)
    const bytes = this.fileBytes(target)
    return this.budget.with(TEXT_COST_PER_BYTE * bytes.length, 'reading', path, signal, async () => decodeText(bytes, path, decoding).text)
  }

  async *streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    throwIfAborted(signal, target.displayPath)
    const bytes = this.fileBytes(target)
    // Bounded chunks, as a disk would hand them out.
    for (let offset = 0; offset < bytes.length; offset += 64 * 1024) {
      throwIfAborted(signal, target.displayPath)
      yield bytes.subarray(offset, offset + 64 * 1024)
    }
  }

  async listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
    throwIfAborted(signal, target.displayPath)
    const node = this.volume.get(target.targetKey)
    if (!node) throw fsError('FS_NOT_FOUND', { path: target.displayPath })
    if (node.type !== 'directory') throw fsError('FS_NOT_DIRECTORY', { path: target.displayPath })
    const dir = target.targetKey === '/' ? '' : target.targetKey
    const { shown, omitted } = listingWindow(this.volume.children(target.targetKey).map((key) => posix.basename(key)), opts)
    return toListing(shown.map((name): FsDirEntry => {
      const key = `${dir}/${name}`
      const info = this.info(key)!
      return {
        name: posix.basename(key),
        type: info.type,
        target: { targetKey: key as FsTargetKey, displayPath: key },
        version: info.version,
        ...(info.size === undefined ? {} : { size: info.size }),
      }
    }), omitted)
  }

  writeText(target: FsTarget, content: string, { expected, signal, decoding }: FsWriteOptions = {}): Promise<FsWriteOutcome> {
    const key = target.targetKey
    const path = target.displayPath
    // Refused before anything is reserved or encoded.
    const contentBytes = checkWriteSize(content, this.maxTextBytes, path)
    return this.lock.run(key, () => publishGuarded({
      path,
      signal,
      probe: async () => {
        const seen = this.info(key)
        checkWriteGuard(seen, expected, path)
        // The new bytes, and the old text decoded for `before`, held until stored. The guard is
        // decided again at the publication point, so what changes while this waits is caught there.
        const release = await this.budget.reserve(writeCost(contentBytes, seen?.size ?? 0), 'writing', path, signal)
        return { previous: this.volume.readFile(key) ?? null, release }
      },
      stage: async ({ previous }) => {
        const plan = planWrite(previous, content, path, decoding)
        await this.volume.publishing()
        return plan
      },
      // The publication point: the guard is decided again on what is there now.
      recheck: () => {
        checkWriteGuard(this.info(key), expected, path)
        this.checkWritable(key, path)
        this.ensureParent(key, path)
      },
      publish: ({ previous }, plan) => {
        const version = this.volume.store(key, plan.bytes)
        return { operation: previous === null ? 'create' : 'update', version, before: plan.before, after: plan.after }
      },
      cleanup: ({ release }) => release(),
    }))
  }

  editText(target: FsTarget, edit: FsEditRequest, opts: FsEditOptions = {}): Promise<FsEditOutcome> {
    return this.edit(target, (bytes, held) => planEdit(bytes, edit, target.displayPath, this.maxTextBytes, held, opts.decoding), opts)
  }

  /** One snapshot, every edit applied in order, one publication: the machinery and bounds of `editText`. */
  override editTextMany(target: FsTarget, edits: readonly FsEditRequest[], opts: FsEditOptions = {}): Promise<FsEditOutcome> {
    return this.edit(target, (bytes, held) => planEdits(bytes, edits, target.displayPath, this.maxTextBytes, held, opts.decoding), opts)
  }

  /** `plan` makes the new text of the old bytes within `held` bytes of memory, or says it needs more (`MemoryShortfall`). */
  private edit(target: FsTarget, plan: (bytes: Uint8Array, held: number) => PlannedEdit | PlannedEdits, { expected, signal }: FsEditOptions): Promise<FsEditOutcome> {
    const key = target.targetKey
    const path = target.displayPath
    return this.lock.run(key, () => publishGuarded({
      path,
      signal,
      probe: async () => {
        const memory = new Reservation(this.budget, 'editing', path, signal)
        for (;;) {
          const seen = this.info(key)
          checkEditGuard(seen, expected, path)
          // Reserved before the text is decoded, held until the new bytes are stored.
          await memory.ensure(EDIT_COST_PER_BYTE * seen!.size!)
          if (this.info(key)?.version === seen!.version) return { version: seen!.version, memory }
          // Changed while waiting for memory: decide the guard again on what is there now.
          memory.release()
        }
      },
      stage: async ({ memory }) => {
        // A result larger than the old text waits for its memory before it is built.
        const planned = await planReserved(memory, (held) => plan(this.volume.readFile(key)!, held))
        await this.volume.publishing()
        return planned
      },
      recheck: (seen) => {
        if (this.info(key)?.version !== seen.version) throw fsError('FS_STALE_VERSION', { path })
        this.checkWritable(key, path)
      },
      publish: (_seen, planned) => {
        const version = this.volume.store(key, planned.bytes)
        return { version, ...editOutcome(planned) }
      },
      cleanup: (seen) => seen.memory.release(),
      // Another writer got in between: a guarded edit is stale, an unguarded one starts over.
      retry: (error) => expected === undefined && FsError.is(error, 'FS_STALE_VERSION'),
    }))
  }

  override remove(target: FsTarget, { expected, signal }: FsRemoveOptions = {}): Promise<FsRemoveOutcome> {
    const key = target.targetKey
    const path = target.displayPath
    return this.lock.run(key, () => publishGuarded({
      path,
      signal,
      probe: () => this.checkSource(key, expected, path),
      stage: () => this.volume.publishing(),
      // The publication point: the version probed must still be there.
      recheck: (seen) => {
        if (this.info(key)?.version !== seen) throw fsError('FS_STALE_VERSION', { path })
      },
      publish: (seen) => {
        this.volume.remove(key)
        return { version: seen }
      },
    }))
  }

  override rename(source: FsTarget, destination: FsTarget, { expected, signal }: FsRenameOptions = {}): Promise<FsRenameOutcome> {
    const from = source.targetKey
    const to = destination.targetKey
    const path = source.displayPath
    const checkDestination = () => {
      checkMoveDestination(this.info(to), to === from, destination.displayPath)
      this.ensureParent(to, destination.displayPath)
    }
    // Both names are held, in one order, so two opposite moves cannot wait for each other.
    return this.lock.runAll([from, to], () => publishGuarded({
      path,
      signal,
      probe: () => {
        const seen = this.checkSource(from, expected, path)
        checkDestination()
        return seen
      },
      stage: () => this.volume.publishing(),
      recheck: (seen) => {
        if (this.info(from)?.version !== seen) throw fsError('FS_STALE_VERSION', { path })
        checkDestination()
      },
      publish: () => ({ version: this.volume.move(from, to) }),
    }))
  }

  /** The guard of a removal or a move's source, and the version it found. */
  private checkSource(key: string, expected: { version: FsVersion } | undefined, path: string): FsVersion {
    const seen = this.info(key)
    checkRemoveGuard(seen, expected, path)
    this.checkWritable(key, path)
    return seen!.version
  }

  private info(key: string): FsInfo | undefined {
    const node = this.volume.get(key)
    if (!node) return undefined
    return node.type === 'file' ? { type: 'file', version: node.version, size: node.bytes.length } : { type: 'directory', version: node.version }
  }

  private checkWritable(key: string, path: string): void {
    const node = this.volume.get(key)
    if (node?.type === 'file' && node.readOnly) {
      throw fsError('FS_PERMISSION_DENIED', { path, fact: 'read-only', reason: 'is read-only; nothing was written' })
    }
  }

  private fileBytes(target: FsTarget): Uint8Array {
    const node = this.volume.get(target.targetKey)
    const path = target.displayPath
    if (!node) throw fsError('FS_NOT_FOUND', { path })
    if (node.type !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path, entry: 'a directory' })
    return node.bytes
  }

  private ensureParent(key: string, path: string): void {
    for (let dir = posix.dirname(key); dir !== '/'; dir = posix.dirname(dir)) {
      const node = this.volume.get(dir)
      if (node?.type === 'file') throw fsError('FS_NOT_DIRECTORY', { path, parent: dir })
    }
  }
}
