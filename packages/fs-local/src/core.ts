import { type FsTarget, type FsTargetKey } from '@deepseek-ai/dsh-fs'
import type { KeyedLock, MemoryBudget } from '@deepseek-ai/dsh-fs/kit'
import type { InlineCalls } from './calls'
import { type Containment, realKey } from './identity'
import type { LocalProcess } from './process'

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

/** Re-checks containment of a target's key, for targets not minted by this instance's `resolve`. */
export async function checkReal(core: DiskCore, target: FsTarget): Promise<void> {
  if (!core.containment.enabled) return
  const real = await realKey(core.process.calls, target.targetKey)
  await core.containment.check(real, target.displayPath)
}
