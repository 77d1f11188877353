import { ForwardingFileSystem, processMemoryBudget } from '@deepseek-ai/dsh-fs/kit'
import type { Context } from 'cordis'
import { z } from 'zod'
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
    .describe('`auto`: on a local filesystem (ext4, xfs, btrfs, tmpfs, overlayfs…) lookups, opens, renames, links and the first 64 KiB each open file reads or writes run on the event loop thread, saving a thread-pool round trip each; fsync, the rest of longer transfers and listings always use the thread pool. `never`: every call uses the thread pool (set it when a network or FUSE mount lies inside the root). Paths longer than 512 characters always use the thread pool.'),
}).strict().prefault({})

export type LocalFileSystemConfig = z.input<typeof Config>

/** `ctx.fs` on the local disk. All the I/O is in `LocalDisk`; this class only wires it into Cordis (`ForwardingFileSystem` hands it every call). */
export class LocalFileSystem extends ForwardingFileSystem {
  static Config = Config
  readonly disk: LocalDisk
  override readonly maxTextBytes: number

  constructor(ctx: Context, config: LocalFileSystemConfig = {}) {
    super(ctx, LocalDisk.capabilities)
    const { memoryBudgetBytes, ...options } = Config.parse(config)
    this.maxTextBytes = options.maxTextBytes
    const process = new LocalProcess()
    this.disk = new LocalDisk({ ...options, memoryBudget: processMemoryBudget(memoryBudgetBytes), process })
    ctx.effect(() => () => void process.dispose(), 'fs-local process')
    // In the background: what crashed processes left wherever their journals say they staged.
    void reclaimAfterCrashes().catch(() => {})
  }

  get backend(): LocalDisk {
    return this.disk
  }
}

export default LocalFileSystem
