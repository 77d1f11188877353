import type { FsCapabilities, FsResolveOptions, FsTarget, FsTargetKey } from '@deepseek-ai/dsh-fs'
import { type FsBackend, KeyedLock, type MemoryBudget, planEdit, planEdits, processMemoryBudget, readOptionsOf, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import { resolve } from 'node:path'
import type { InlineCalls } from './calls'
import { searchDisk, walkDisk } from './discovery'
import { mapErrors } from './errors'
import { checkPathSyntax, Containment, realKey } from './identity'
import { inspectTarget, listDirectory, readWhole, statTarget, streamFrom } from './read'
import { removeTarget, renameTarget } from './move'
import { LocalProcess } from './process'
import { editTarget, writeTarget } from './mutate'

/** The plugin's `Config` (each option described there), parsed, and what a direct user of the disk may add. */
export interface LocalDiskOptions {
  cwd: string
  root?: string | undefined
  diffMaxBytes: number
  maxTextBytes: number
  inlineCalls?: InlineCalls
  /** A fixed chunk size for `streamBytes`, in bytes (default: growing from 64 KiB to 1 MiB). */
  streamChunkBytes?: number
  /** What whole-file reads and edits reserve memory from. Default: the process's budget. */
  memoryBudget?: MemoryBudget
  /** The process state this disk shares; default: one of its own. */
  process?: LocalProcess
}

/** What every operation of one `LocalDisk` shares (the disk itself). */
export type DiskCore = Pick<LocalDisk, 'options' | 'containment' | 'budget' | 'lock' | 'process'>

type Method<K extends keyof FsBackend> = NonNullable<FsBackend[K]>

/** The local-disk provider without Cordis; one mutation per target at a time here, the staged name (`staging.ts`) locks across processes. */
export class LocalDisk {
  static readonly capabilities: FsCapabilities = { remove: true, rename: true }

  readonly cwd: string
  readonly containment: Containment
  readonly budget: MemoryBudget
  /** Mutations of one target run one at a time in this process. */
  readonly lock = new KeyedLock<FsTargetKey>()
  readonly process: LocalProcess

  constructor(readonly options: LocalDiskOptions) {
    this.process = options.process ?? new LocalProcess()
    this.cwd = resolve(options.cwd)
    this.process.enlist(resolve(this.cwd, options.root ?? ''), options.inlineCalls ?? 'auto')
    this.containment = new Containment(this.process.calls, options.root, this.cwd)
    this.budget = options.memoryBudget ?? processMemoryBudget()
  }

  async resolve(path: string, opts: FsResolveOptions = {}): Promise<FsTarget> {
    throwIfAborted(opts.signal, path)
    checkPathSyntax(path)
    if (opts.cwd !== undefined) checkPathSyntax(opts.cwd)
    const absolute = resolve(this.cwd, opts.cwd ?? '', path)
    const key = await mapErrors('resolve', path, () => realKey(this.process.calls, absolute))
    await this.containment.check(key, path)
    return { targetKey: key as FsTargetKey, displayPath: absolute }
  }

  // The contract's methods, each handed to the module that does it (typed by the contract itself).
  readonly inspect: Method<'inspect'> = async (path, opts = {}) =>
    inspectTarget(this, await this.resolve(path, opts), opts)
  readonly stat: Method<'stat'> = (target, signal) => statTarget(this, target, signal)
  readonly readText: Method<'readText'> = (target, opts) => readWhole(this, target, readOptionsOf(opts))
  /** The raw bytes, in chunks that reuse one buffer: a chunk is valid until the next one is pulled. */
  readonly streamBytes: Method<'streamBytes'> = (target, signal) => streamFrom(this, target, 0, { signal })
  readonly streamBytesFrom: Method<'streamBytesFrom'> = (target, start, opts = {}) => streamFrom(this, target, start, opts)
  readonly listDir: Method<'listDir'> = (target, signal, opts) => listDirectory(this, target, signal, opts)
  readonly writeText: Method<'writeText'> = (target, content, opts = {}) => writeTarget(this, target, content, opts)
  readonly editText: Method<'editText'> = (target, edit, opts = {}) =>
    editTarget(this, target, (bytes, held) => planEdit(bytes, edit, target.displayPath, this.options.maxTextBytes, held, opts.decoding), opts)
  readonly editTextMany: Method<'editTextMany'> = (target, edits, opts = {}) =>
    editTarget(this, target, (bytes, held) => planEdits(bytes, edits, target.displayPath, this.options.maxTextBytes, held, opts.decoding), opts)
  readonly walk: Method<'walk'> = (root, options, signal) => walkDisk(this.containment, root, options, signal)
  readonly search: Method<'search'> = (root, options, signal) => searchDisk(this.containment, root, options, signal)
  readonly remove: Method<'remove'> = (target, opts = {}) => removeTarget(this, target, opts)
  readonly rename: Method<'rename'> = (source, destination, opts = {}) => renameTarget(this, source, destination, opts)
}
