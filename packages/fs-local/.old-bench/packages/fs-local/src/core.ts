import { type FsTarget, type FsTargetKey } from '../../fs/src/index'
import { KeyedLock, type MemoryBudget, processMemoryBudget } from '../../fs/src/kit'
import { enlistProvider, type InlineCalls } from './calls'
import { absolutePath, Containment, realKey } from './identity'

export interface LocalDiskOptions {
  /** Where relative paths resolve from (absolute). */
  cwd: string
  /** Containment root: targets whose real location is outside fail `FS_OUTSIDE_ROOT`. */
  root?: string | undefined
  /** Above this size a mutation reports `before: null` instead of the old text. */
  diffMaxBytes: number
  /** Largest file read whole into a string (`readText`, `editText`); `streamText` has no bound. */
  maxTextBytes: number
  /** A fixed chunk size for `streamText`/`streamBytes`, in bytes (default: growing from 64 KiB to 1 MiB). */
  streamChunkBytes?: number
  /** What whole-file reads and edits reserve memory from. Default: the process's budget. */
  memoryBudget?: MemoryBudget
  /** Whether lookups and directory-entry changes may run on the loop thread (`calls.ts`); default `auto`. */
  inlineCalls?: InlineCalls
}

/** What every operation of one `LocalDisk` shares: its options, root, memory budget and locks. */
export interface DiskCore {
  readonly options: LocalDiskOptions
  readonly cwd: string
  readonly containment: Containment
  readonly budget: MemoryBudget
  /** Mutations of one target run one at a time in this process. */
  readonly lock: KeyedLock<FsTargetKey>
  /** Directories already swept for dead writers' staging. */
  readonly swept: Map<string, Promise<void>>
  /** Awaited between staging and the publication point; set only by `instrument.ts` (tests). */
  beforePublish: ((destination: string) => Promise<void>) | undefined
}

// Keyed by the `LocalDisk` that owns the core, so instrumentation can reach it without a public field.
const cores = new WeakMap<object, DiskCore>()

export function createCore(owner: object, options: LocalDiskOptions): DiskCore {
  const cwd = absolutePath(options.cwd, process.cwd())
  enlistProvider(options.root === undefined ? cwd : absolutePath(options.root, cwd), options.inlineCalls ?? 'auto')
  const core: DiskCore = {
    options,
    cwd,
    containment: new Containment(options.root, cwd),
    budget: options.memoryBudget ?? processMemoryBudget(),
    lock: new KeyedLock<FsTargetKey>(),
    swept: new Map(),
    beforePublish: undefined,
  }
  cores.set(owner, core)
  return core
}

export function coreOf(owner: object): DiskCore {
  const core = cores.get(owner)
  if (core === undefined) throw new TypeError('not a LocalDisk')
  return core
}

/** Re-checks containment of a target's key, for targets not minted by this instance's `resolve`. */
export async function checkReal(core: DiskCore, target: FsTarget): Promise<void> {
  if (!core.containment.enabled) return
  const real = await realKey(target.targetKey)
  await core.containment.check(real, target.displayPath)
}
