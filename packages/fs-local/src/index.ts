import {
  FileSystem, type FsDirListing, type FsListOptions, type FsSearchOptions, type FsSearchResult, type FsWalkOptions,
  type FsWalkResult, type FsEditOptions, type FsEditOutcome, type FsEditRequest, type FsInfo, type FsInspection, type FsInspectOptions, type FsRemoveOptions, type FsRemoveOutcome, type FsRenameOptions, type FsRenameOutcome, type FsResolveOptions, type FsStreamFromOptions, type FsTarget,
  type FsWriteOptions, type FsWriteOutcome,
} from '@deepseek-ai/dsh-fs'
import { processMemoryBudget } from '@deepseek-ai/dsh-fs/kit'
import type { Context } from 'cordis'
import { z } from 'zod'
import { searchDisk, walkDisk } from './discovery'
import { reclaimAfterCrashes } from './journal'
import { LocalDisk } from './local-disk'
import { LocalProcess } from './process'

export { LocalDisk, type LocalDiskOptions } from './local-disk'
export { reclaimAfterCrashes } from './journal'
export { reclaimStaging, STAGING_PREFIX } from './staging'
export { LocalProcess } from './process'
export { toFsError } from './errors'

const MiB = 1024 * 1024

export const Config = z.object({
  cwd: z.string().min(1).default(() => process.cwd()).describe('Where relative paths resolve from.'),
  root: z.string().min(1).optional().describe('Containment root: targets whose real location is outside it fail FS_OUTSIDE_ROOT.'),
  diffMaxBytes: z.number().int().nonnegative().default(MiB / 2).describe('Above this size, mutations report no `before` text.'),
  maxTextBytes: z.number().int().positive().default(256 * MiB).describe('Largest file read whole as text (readText, editText), and largest text a write or an edit may produce.'),
  memoryBudgetBytes: z.number().int().positive().optional()
    .describe('Memory that whole-file reads and edits may hold at once in this process (default 2 GiB); past it they wait their turn. Shared by every provider in the process: the smallest configured value wins.'),
  inlineCalls: z.enum(['auto', 'never']).default('auto')
    .describe('`auto`: on a local filesystem (ext4, xfs, btrfs, tmpfs, overlayfs…) lookups (stat, lstat, fstat, realpath, readlink) run on the event loop thread, saving a thread-pool round trip each; directory-entry changes, data, fsync, listings and opens always use the thread pool. `never`: every call uses the thread pool (set it when a network or FUSE mount lies inside the root). Lookups of paths longer than 512 characters always use the thread pool.'),
}).strict().prefault({})

export type LocalFileSystemConfig = z.input<typeof Config>

/** `ctx.fs` on the local disk. All the I/O is in `LocalDisk`; this class only wires it into Cordis. */
export class LocalFileSystem extends FileSystem {
  static Config = Config
  readonly disk: LocalDisk
  override readonly maxTextBytes: number

  constructor(ctx: Context, config: LocalFileSystemConfig = {}) {
    super(ctx)
    const { memoryBudgetBytes, ...options } = Config.parse(config)
    this.maxTextBytes = options.maxTextBytes
    const process = new LocalProcess()
    this.disk = new LocalDisk({ ...options, memoryBudget: processMemoryBudget(memoryBudgetBytes), process })
    ctx.effect(() => () => void process.dispose(), 'fs-local process')
    // In the background: what crashed processes left wherever their journals say they staged.
    void reclaimAfterCrashes().catch(() => {})
  }

  resolve(path: string, opts?: FsResolveOptions): Promise<FsTarget> {
    return this.disk.resolve(path, opts)
  }

  override inspect(path: string, opts?: FsInspectOptions): Promise<FsInspection> {
    return this.disk.inspect(path, opts)
  }

  stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    return this.disk.stat(target, signal)
  }

  readText(target: FsTarget, signal?: AbortSignal): Promise<string> {
    return this.disk.readText(target, signal)
  }

  streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    return this.disk.streamBytes(target, signal)
  }

  override streamBytesFrom(target: FsTarget, start: number, opts?: FsStreamFromOptions): AsyncIterable<Uint8Array> {
    return this.disk.streamBytesFrom(target, start, opts)
  }

  listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
    return this.disk.listDir(target, signal, opts)
  }

  writeText(target: FsTarget, content: string, opts?: FsWriteOptions): Promise<FsWriteOutcome> {
    return this.disk.writeText(target, content, opts)
  }

  editText(target: FsTarget, edit: FsEditRequest, opts?: FsEditOptions): Promise<FsEditOutcome> {
    return this.disk.editText(target, edit, opts)
  }

  override remove(target: FsTarget, opts?: FsRemoveOptions): Promise<FsRemoveOutcome> {
    return this.disk.remove(target, opts)
  }

  override rename(source: FsTarget, destination: FsTarget, opts?: FsRenameOptions): Promise<FsRenameOutcome> {
    return this.disk.rename(source, destination, opts)
  }

  override editTextMany(target: FsTarget, edits: readonly FsEditRequest[], opts?: FsEditOptions): Promise<FsEditOutcome> {
    return this.disk.editTextMany(target, edits, opts)
  }

  override walk(root: FsTarget, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
    return walkDisk(this.disk.containment, root, options, signal)
  }

  override search(root: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
    return searchDisk(this.disk.containment, root, options, signal)
  }
}

export default LocalFileSystem
