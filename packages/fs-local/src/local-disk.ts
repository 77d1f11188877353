import { type FsCapabilities, type FsDirListing, type FsEditOptions, type FsEditOutcome, type FsEditRequest, type FsInfo, type FsInspection, type FsInspectOptions, type FsListOptions, type FsRemoveOptions, type FsRemoveOutcome, type FsRenameOptions, type FsRenameOutcome, type FsResolveOptions, type FsSearchOptions, type FsSearchResult, type FsWalkOptions, type FsWalkResult, type FsStreamFromOptions, type FsTarget, type FsTargetKey, type FsWriteOptions, type FsWriteOutcome } from '@deepseek-ai/dsh-fs'
import { planEdit, planEdits, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import { createCore, type DiskCore, type LocalDiskOptions } from './core'
import { searchDisk, walkDisk } from './discovery'
import { mapErrors } from './errors'
import { absolutePath, checkPathSyntax, type Containment, realKey } from './identity'
import { inspectTarget, statAsGiven } from './inspect'
import { listDirectory } from './listing'
import { removeTarget, renameTarget } from './move'
import { LocalProcess } from './process'
import { editTarget, writeTarget } from './mutate'
import { readWhole, statTarget, streamFrom } from './read'

export type { LocalDiskOptions } from './core'

/**
 * The whole local-disk provider without Cordis: every method of the `FileSystem` contract, over
 * Node's `fs`. Mutations of one target run one at a time in this process (a FIFO lock per key);
 * across processes, atomic publication and the link-based guarded create do the work. The
 * methods live by concern: `read.ts`, `listing.ts`, `mutate.ts` and `move.ts` (over `find.ts` and `publication.ts`).
 */
export class LocalDisk {
  /** The optional methods this backend has (`FileSystem.capabilities`). */
  static readonly capabilities: FsCapabilities = { remove: true, rename: true }
  readonly cwd: string
  readonly containment: Containment
  #core: DiskCore

  readonly process: LocalProcess

  constructor(options: LocalDiskOptions) {
    this.process = options.process ?? new LocalProcess()
    this.#core = createCore(options, this.process)
    this.cwd = this.#core.cwd
    this.containment = this.#core.containment
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

  /** `resolve`, then `stat` and the small file's text from one descriptor (see `inspect.ts`). */
  async inspect(path: string, opts: FsInspectOptions = {}): Promise<FsInspection> {
    const { calls } = this.process
    const given = statAsGiven(calls, path, opts.cwd, this.cwd)
    const target = await this.resolve(path, opts)
    return inspectTarget({ calls, containment: this.containment, budget: this.#core.budget, maxTextBytes: this.#core.options.maxTextBytes }, target, opts.textUpTo, opts.signal, await given)
  }

  stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    return statTarget(this.#core, target, signal)
  }

  readText(target: FsTarget, signal?: AbortSignal): Promise<string> {
    return readWhole(this.#core, target, signal)
  }

  /** The raw bytes, in chunks that reuse one buffer: a chunk is valid until the next one is pulled. */
  streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    return this.streamBytesFrom(target, 0, signal === undefined ? {} : { signal })
  }

  /** The raw bytes from `start` on, checked against `opts.version` on the opened descriptor. */
  streamBytesFrom(target: FsTarget, start: number, opts: FsStreamFromOptions = {}): AsyncIterable<Uint8Array> {
    return streamFrom(this.#core, target, start, opts)
  }

  listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
    return listDirectory(this.#core, target, signal, opts)
  }

  writeText(target: FsTarget, content: string, { expected, signal, hooks }: FsWriteOptions = {}): Promise<FsWriteOutcome> {
    return writeTarget(this.#core, target, content, expected, signal, hooks)
  }

  editText(target: FsTarget, edit: FsEditRequest, { expected, signal, hooks }: FsEditOptions = {}): Promise<FsEditOutcome> {
    return editTarget(this.#core, target, (bytes, held) => planEdit(bytes, edit, target.displayPath, this.#core.options.maxTextBytes, held), expected, signal, hooks)
  }

  /** Several edits of one snapshot, published once: the machinery and bounds of `editText`. */
  editTextMany(target: FsTarget, edits: readonly FsEditRequest[], { expected, signal, hooks }: FsEditOptions = {}): Promise<FsEditOutcome> {
    return editTarget(this.#core, target, (bytes, held) => planEdits(bytes, edits, target.displayPath, this.#core.options.maxTextBytes, held), expected, signal, hooks)
  }

  /** Depth first, gitignore-aware, never following a symlink out of the containment. */
  walk(root: FsTarget, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
    return walkDisk(this.containment, root, options, signal)
  }

  search(root: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
    return searchDisk(this.containment, root, options, signal)
  }

  remove(target: FsTarget, { expected, signal }: FsRemoveOptions = {}): Promise<FsRemoveOutcome> {
    return removeTarget(this.#core, target, expected, signal)
  }

  rename(source: FsTarget, destination: FsTarget, { expected, signal }: FsRenameOptions = {}): Promise<FsRenameOutcome> {
    return renameTarget(this.#core, source, destination, expected, signal)
  }
}
