import type { FsObservation, FsTarget, FsVersionGuard, FsWriteIntent } from './types'

/** The guard an edit runs under; `undefined` edits the current content unconditionally. */
export type FsEditExpectation = FsVersionGuard | undefined

declare module 'cordis' {
  interface Events {
    /**
     * Single-slot waterfall run by a tool before `ctx.fs.writeText`. The caller's default thunk
     * returns `undefined` (no guard). A policy answers without calling `next()`.
     */
    'fs/write-intent'(
      target: FsTarget,
      actor: object | undefined,
      next: () => FsWriteIntent | undefined | Promise<FsWriteIntent | undefined>,
    ): Promise<FsWriteIntent | undefined>
    /**
     * Single-slot waterfall run by a tool before `ctx.fs.editText`. The default returns `undefined`
     * (no guard). A policy answers with a version, or throws `FS_NOT_OBSERVED` / `FS_NOT_FOUND`.
     */
    'fs/edit-intent'(
      target: FsTarget,
      actor: object | undefined,
      next: () => FsEditExpectation | Promise<FsEditExpectation>,
    ): Promise<FsEditExpectation>
    /**
     * Plain emit after a successful read or mutation (`present`) or a metadata miss (`absent`).
     * Listeners must be synchronous recorders that do not throw.
     */
    'fs/observed'(target: FsTarget, observation: FsObservation, actor: object | undefined): void
  }
}
