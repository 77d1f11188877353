import { fsError } from '@deepseek-ai/dsh-fs'
import { constants } from 'node:fs'
import { type FileHandle, open, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { Calls } from './calls'
import { errnoCode } from './errors'
import { tryHold } from './kernel-lock'
import { lockNameOf } from './names'

/**
 * A cross-process lock around the last version check and the replacing rename of one target. The
 * in-process `KeyedLock` cannot see other processes: two of them could both re-check the version
 * they read, both find it current, and both rename, so one reported success would be lost.
 *
 * The lock is a file `.dsh-staging.l.…` beside the target (named after it), opened and locked with
 * an exclusive kernel lock, which the kernel drops when its holder closes it or dies: a dead
 * holder never blocks anyone, and a live one is never judged dead, however long it holds on. A
 * holder removes the name before it closes; whoever locked the inode meanwhile sees that the name
 * no longer leads to it and opens the name again. Where the filesystem has no kernel locks, the
 * lock is the exclusive creation of that name, and one left by a dead writer cannot be told from a
 * live one: the write then fails, naming the file to remove.
 */
export type ReleaseLock = () => Promise<void>

/** How long a writer waits for another to finish its re-check and rename before it gives up (nothing is written). */
const WAIT_LIMIT_MS = 10_000

const OPEN = constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW

export function lockPathOf(dir: string, name: string): string {
  return join(dir, lockNameOf(name))
}

/**
 * Takes the publication lock of the entry `name` of the (anchored) directory `dir`. The lock file
 * is opened at once, and locked only once `ready` (the staged bytes' fsync) has settled: the lock
 * is held for the re-check and the rename alone, however slow the disk.
 */
export async function acquirePublishLock(calls: Calls, dir: string, name: string, display: string, ready?: Promise<unknown>): Promise<ReleaseLock> {
  const path = lockPathOf(dir, name)
  // Awaited below, after the open: a failure meanwhile must not count as unhandled.
  ready?.catch(() => {})
  let { handle, created } = await openLock(path)
  try {
    await ready
  } catch (error) {
    // Not left behind by a write that never got to publish (unless another writer holds it).
    if (await lockNamed(calls, handle, path) === 'held') await unlink(path).catch(() => {})
    await handle.close().catch(() => {})
    throw error
  }
  const deadline = Date.now() + WAIT_LIMIT_MS
  for (let attempt = 0; ; attempt++) {
    const state = await lockNamed(calls, handle, path)
    if (state === 'unsupported') {
      // No kernel locks here: having created the name is the lock.
      if (created) return releaser(path, handle)
      await handle.close().catch(() => {})
      return acquireByCreation(path, lockNameOf(name), display, deadline)
    }
    if (state === 'held') return releaser(path, handle)
    if (state === 'renamed') {
      // Released and removed by its holder (or a sweep) before we locked: the name is new.
      await handle.close().catch(() => {})
      ;({ handle, created } = await openLock(path))
      continue
    }
    if (Date.now() > deadline) {
      await handle.close().catch(() => {})
      throw busy(display)
    }
    // The step under the lock is a stat and a rename: short, jittered waits suffice.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * Math.min(2 + attempt, 20)))
  }
}

/** Opens the lock file, creating it if missing (`created` says whether this call did). */
async function openLock(path: string): Promise<{ handle: FileHandle; created: boolean }> {
  for (;;) {
    try {
      return { handle: await open(path, OPEN | constants.O_EXCL, 0o600), created: true }
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error
    }
    try {
      return { handle: await open(path, constants.O_RDWR | constants.O_NOFOLLOW), created: false }
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error
    }
  }
}

/** Locks the open lock file, and tells whether `path` still names it (`renamed` when not). */
async function lockNamed(calls: Calls, handle: FileHandle, path: string): Promise<'held' | 'busy' | 'renamed' | 'unsupported'> {
  const state = tryHold(handle.fd)
  if (state !== 'held') return state
  const [mine, named] = await Promise.all([calls.fstat(handle), calls.lstat(path).catch(() => undefined)])
  return named !== undefined && named.ino === mine.ino ? 'held' : 'renamed'
}

function releaser(path: string, handle: FileHandle): ReleaseLock {
  return async () => {
    await unlink(path).catch(() => {})
    await handle.close().catch(() => {})
  }
}

function busy(display: string) {
  return fsError('FS_IO_ERROR', { path: display, reason: `was not written: another writer kept its publication lock for ${WAIT_LIMIT_MS / 1000} s; nothing changed, try again` })
}

async function acquireByCreation(path: string, lockName: string, display: string, deadline: number): Promise<ReleaseLock> {
  for (let attempt = 0; ; attempt++) {
    try {
      return releaser(path, await open(path, OPEN | constants.O_EXCL, 0o600))
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error
    }
    if (Date.now() > deadline) {
      throw fsError('FS_IO_ERROR', {
        path: display,
        reason: `was not written: its publication lock ${lockName} exists beside it, and this filesystem has no kernel locks that could show whether its writer is alive; if no dsh is writing there, remove that file`,
      })
    }
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * Math.min(2 + attempt, 20)))
  }
}
