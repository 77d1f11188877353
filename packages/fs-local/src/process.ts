import { EncodeBuffers } from './write-content'
import { Journal } from './journal'

/** Test instrumentation: awaited at fixed points of every write, so a test can act as a competing process there. */
export interface PublishHooks {
  /** After the content is staged, before its fsync and publication. */
  staged?: (destination: string) => Promise<void>
  /** With the publication lock held, before the last version check and the rename. */
  locked?: (destination: string) => Promise<void>
}

/**
 * Everything fs-local keeps between calls, in one object: the plugin makes one, passes it to its
 * `LocalDisk` and disposes it; a test makes a fresh one. No module of fs-local keeps state of its own.
 */
export class LocalProcess {
  /** Where this process stages, for the next process to sweep after a crash. */
  readonly journal = new Journal()
  /** Encode buffers reused by large writes. */
  readonly buffers = new EncodeBuffers()
  /** Directories already swept for dead writers' staging (real path → the sweep). */
  readonly swept = new Map<string, Promise<void>>()
  hooks: PublishHooks = {}

  async dispose(): Promise<void> {
    this.swept.clear()
    await this.journal.close()
  }
}
