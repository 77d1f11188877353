import { type Calls, type InlineCalls, INLINE_CALLS, isLocalFilesystem, POOLED_CALLS } from './calls'
import { HeldDirectories } from './anchor'
import { Journal } from './journal'
import { EncodeBuffers } from './write-content'

/** Test instrumentation: awaited at fixed points of every write, so a test can act as a competing process there. */
export interface PublishHooks {
  /** After the content is staged, before its fsync and publication. */
  staged?: (destination: string) => Promise<void>
  /** At the end of the staged file's fsync: a test makes the fsync as slow as it likes. */
  fsync?: (destination: string) => Promise<void>
  /** With the publication lock held, before the last version check and the rename. */
  locked?: (destination: string) => Promise<void>
}

/** Everything fs-local keeps between calls: the plugin makes one, passes it to its `LocalDisk` and disposes it; a test makes a fresh one. */
export class LocalProcess {
  /** Lookups inline only while every disk enlisted stands on a local filesystem and none said `never`. */
  calls: Calls = POOLED_CALLS
  #pooled = false
  readonly held = new HeldDirectories()
  readonly journal = new Journal()
  readonly buffers = new EncodeBuffers()
  /** Directories already swept for dead writers' staging (real path → the sweep). */
  readonly swept = new Map<string, Promise<void>>()
  hooks: PublishHooks = {}

  /** Counts a disk rooted at `dir` in, for the rest of this process's life: the cautious answer wins. */
  enlist(dir: string, mode: InlineCalls): void {
    this.#pooled ||= mode === 'never' || !isLocalFilesystem(dir)
    this.calls = this.#pooled ? POOLED_CALLS : INLINE_CALLS
  }

  async dispose(): Promise<void> {
    this.swept.clear()
    this.held.clear()
    await this.journal.close()
  }
}
