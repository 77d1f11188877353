import type { LocalDisk } from './local-disk'

/**
 * Test instrumentation, not exported from the package: `hook` is awaited after each write's
 * content is staged and before its fsync and publication point, so a test can act as a competing
 * process in exactly that window (or stand for a slow fsync). `undefined` removes it.
 */
export function beforeEachPublish(disk: LocalDisk, hook: ((destination: string) => Promise<void>) | undefined): void {
  disk.process.hooks.staged = hook
}

/** `hook` is awaited with the publication lock held, right before the last version check and the rename. */
export function whileLocked(disk: LocalDisk, hook: ((destination: string) => Promise<void>) | undefined): void {
  disk.process.hooks.locked = hook
}
