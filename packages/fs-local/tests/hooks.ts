import type { LocalDisk } from '../src/local-disk'

type Hook = ((destination: string) => Promise<void>) | undefined

/** Awaited after each write's content is staged, before its fsync: a test acts as a competing process there. */
export function beforeEachPublish(disk: LocalDisk, hook: Hook): void {
  disk.process.hooks.staged = hook
}

/** Awaited at the end of each staged file's fsync: the fsync takes as long as `hook` does. */
export function slowFsync(disk: LocalDisk, hook: Hook): void {
  disk.process.hooks.fsync = hook
}

/** Awaited with the publication lock held, right before the last version check and the rename. */
export function whileLocked(disk: LocalDisk, hook: Hook): void {
  disk.process.hooks.locked = hook
}

/**
 * Holds every write after its content is staged (its staged name, the target's publication lock,
 * exists) until `release`; `reached` resolves when a write gets there.
 */
export function holdAfterStaging(disk: LocalDisk): { reached: Promise<void>; release: () => void } {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let staged!: () => void
  const reached = new Promise<void>((resolve) => (staged = resolve))
  beforeEachPublish(disk, async () => {
    staged()
    await held
  })
  return { reached, release }
}
