import {
  type FsCapabilities, type FsSearchOptions, type FsSearchResult, type FsWalkOptions, type FsWalkResult,
  type FsDirListing, type FsEditOptions, type FsEditOutcome, type FsEditRequest, type FsInfo, type FsInspection, type FsInspectOptions, type FsListOptions, type FsRemoveOptions,
  type FsRemoveOutcome, type FsRenameOptions, type FsRenameOutcome, type FsResolveOptions, type FsStreamFromOptions, type FsTarget, type FsTargetKey, type FsWriteOptions, type FsWriteOutcome,
} from '@deepseek-ai/dsh-fs'
import { KeyedLock, type MemoryBudget, planEdit, planEdits, processMemoryBudget, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import type { InlineCalls } from './calls'
import { searchDisk, walkDisk } from './discovery'
import { mapErrors } from './errors'
import { absolutePath, checkPathSyntax, Containment, realKey } from './identity'
import { inspectTarget, listDirectory, readWhole, statTarget, streamFrom } from './read'
import { removeTarget, renameTarget } from './move'
import { LocalProcess } from './process'
import { editTarget, writeTarget } from './mutate'

export interface LocalDiskOptions {
  /** Where relative paths resolve from (absolute). */
  cwd: string
  /** Containment root: targets whose real location is outside fail `FS_OUTSIDE_ROOT`. */
  root?: string | undefined
  /** Above this size a mutation reports `before: null` instead of the old text. */
  diffMaxBytes: number
  /** Largest file read whole into a string (`readText`, `editText`). */
  maxTextBytes: number
  /** A fixed chunk size for `streamBytes`, in bytes (default: growing from 64 KiB to 1 MiB). */
  streamChunkBytes?: number
  /** What whole-file reads and edits reserve memory from. Default: the process's budget. */
  memoryBudget?: MemoryBudget
  /** Whether lookups may run on the loop thread (`calls.ts`); default `auto`. */
  inlineCalls?: InlineCalls
  /** The process state this disk shares; default: one of its own. */
  process?: LocalProcess
}

/** What every operation of one `LocalDisk` shares (the disk itself). */
export interface DiskCore {
  readonly options: LocalDiskOptions
  readonly containment: Containment
  readonly budget: MemoryBudget
  /** Mutations of one target run one at a time in this process. */
  readonly lock: KeyedLock<FsTargetKey>
  readonly process: LocalProcess
}

/** The local-disk provider without Cordis; one mutation per target at a time here, the staged name (`staging.ts`) locks across processes. */
export class LocalDisk implements DiskCore {
  /** The optional methods this backend has (`FileSystem.capabilities`). */
  static readonly capabilities: FsCapabilities = { remove: true, rename: true }

  readonly cwd: string
  readonly containment: Containment
  readonly budget: MemoryBudget
  readonly lock = new KeyedLock<FsTargetKey>()
  readonly process: LocalProcess

  constructor(readonly options: LocalDiskOptions) {
    this.process = options.process ?? new LocalProcess()
    this.cwd = absolutePath(options.cwd, process.cwd())
    this.process.enlist(options.root === undefined ? this.cwd : absolutePath(options.root, this.cwd), options.inlineCalls ?? 'auto')
    this.containment = new Containment(this.process.calls, options.root, this.cwd)
    this.budget = options.memoryBudget ?? processMemoryBudget()
  }

  async resolve(path: string, opts: FsResolveOptions = {}): Promise<FsTarget> {
    throwIfAborted(opts.signal, path)
    checkPathSyntax(path)
    if (opts.cwd !== undefined) checkPathSyntax(opts.cwd)
    const absolute = absolutePath(path, opts.cwd === undefined ? this.cwd : absolutePath(opts.cwd, this.cwd))
    const key = await mapErrors('resolve', path, () => realKey(this.process.calls, absolute))
    await this.containment.check(key, path)
    return { targetKey: key as FsTargetKey, displayPath: absolute }
  }

  /** `resolve`, then `stat` and the small file's text from one descriptor (`read.ts`). */
  async inspect(path: string, opts: FsInspectOptions = {}): Promise<FsInspection> {
    return inspectTarget(this, await this.resolve(path, opts), opts.textUpTo, opts.signal, opts.as)
  }

  stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    return statTarget(this, target, signal)
  }

  readText(target: FsTarget, signal?: AbortSignal): Promise<string> {
    return readWhole(this, target, signal)
  }

  /** The raw bytes, in chunks that reuse one buffer: a chunk is valid until the next one is pulled. */
  streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    return this.streamBytesFrom(target, 0, signal === undefined ? {} : { signal })
  }

  streamBytesFrom(target: FsTarget, start: number, opts: FsStreamFromOptions = {}): AsyncIterable<Uint8Array> {
    return streamFrom(this, target, start, opts)
  }

  listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
    return listDirectory(this, target, signal, opts)
  }

  writeText(target: FsTarget, content: string, opts: FsWriteOptions = {}): Promise<FsWriteOutcome> {
    return writeTarget(this, target, content, opts)
  }

  editText(target: FsTarget, edit: FsEditRequest, opts: FsEditOptions = {}): Promise<FsEditOutcome> {
    return editTarget(this, target, (bytes, held) => planEdit(bytes, edit, target.displayPath, this.options.maxTextBytes, held), opts)
  }

  /** Several edits of one snapshot, published once: the machinery and bounds of `editText`. */
  editTextMany(target: FsTarget, edits: readonly FsEditRequest[], opts: FsEditOptions = {}): Promise<FsEditOutcome> {
    return editTarget(this, target, (bytes, held) => planEdits(bytes, edits, target.displayPath, this.options.maxTextBytes, held), opts)
  }

  /** Depth first, gitignore-aware, never following a symlink out of the containment. */
  walk(root: FsTarget, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
    return walkDisk(this.containment, root, options, signal)
  }

  search(root: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
    return searchDisk(this.containment, root, options, signal)
  }

  remove(target: FsTarget, opts: FsRemoveOptions = {}): Promise<FsRemoveOutcome> {
    return removeTarget(this, target, opts)
  }

  rename(source: FsTarget, destination: FsTarget, opts: FsRenameOptions = {}): Promise<FsRenameOutcome> {
    return renameTarget(this, source, destination, opts)
  }
}
