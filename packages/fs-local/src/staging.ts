import { fsError } from '@deepseek-ai/dsh-fs'
import { constants, type Stats } from 'node:fs'
import { type FileHandle, mkdir, open, readdir, rmdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { type Calls, POOLED_CALLS } from './calls'
import { errnoCode } from './errors'
import { tryHold } from './kernel-lock'
import { isStagingName, newStagingName, stagingKindOf, STAGING_PREFIX } from './names'

export { isStagingName, STAGING_PREFIX }

/**
 * Bytes waiting beside their destination. A replacement is staged in a file of its own
 * (`.dsh-staging.f.…`, readable by its owner only until it takes the old file's mode); a new file,
 * whose mode and default ACL must come from its creation, as `content` in a private (0700)
 * directory (`.dsh-staging.d.…`). Its writer holds an exclusive kernel lock on the staged file
 * from its creation until its descriptor closes after publication: a sweep that can take a lock
 * on it knows the writer is gone (see `kernel-lock.ts`).
 */
export interface Staged {
  /** The staged file (the name that is renamed or linked into place). */
  file: string
  /** The private directory of a new file's staging. */
  dir?: string
  handle: FileHandle
  /** What the staged file got at its creation (owner, group, mode after the umask). */
  created: Stats
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
/** A sweep may find a staged name gone under it; after this many, something else is wrong. */
const ATTEMPTS = 3
const EUID = typeof process.geteuid === 'function' ? process.geteuid() : -1

/**
 * Takes the writer's lock on a file just created at `path` and returns its `fstat`. A sweep may have opened and locked it
 * between the creation and this lock (it then removes it): the lock is ours and the name still ours
 * only when the name still leads to the inode we hold. Where there are no kernel locks the staging
 * is simply never reclaimed by anyone.
 */
async function claim(calls: Calls, handle: FileHandle, path: string): Promise<Stats | undefined> {
  const held = tryHold(handle.fd)
  if (held === 'busy') return undefined
  const [mine, named] = await Promise.all([calls.fstat(handle), held === 'held' ? calls.lstat(path).catch(() => undefined) : undefined])
  if (held === 'unsupported') return mine
  return named !== undefined && named.ino === mine.ino && named.dev === mine.dev ? mine : undefined
}

/**
 * Creates the staged file of a write inside `parent` (anchored and checked by the caller): a file
 * of its own with `mode` for a replacement, or `content` (0o666, the umask applies) in a new
 * private directory for a new file (`mode` undefined).
 */
export async function makeStaged(calls: Calls, parent: string, mode: number | undefined): Promise<Staged> {
  for (let attempt = 1; ; attempt++) {
    const made = mode === undefined ? await stagedInDirectory(calls, parent) : await stagedFile(calls, parent, mode)
    if (made !== undefined) return made
    if (attempt === ATTEMPTS) {
      throw fsError('FS_IO_ERROR', { path: parent, reason: `could not be staged in: its staged file was removed ${ATTEMPTS} times in a row` })
    }
  }
}

async function stagedFile(calls: Calls, parent: string, mode: number): Promise<Staged | undefined> {
  const file = join(parent, newStagingName('f'))
  const handle = await open(file, CREATE, mode)
  const created = await claim(calls, handle, file)
  if (created !== undefined) return { file, handle, created }
  await handle.close().catch(() => {})
  return undefined
}

async function stagedInDirectory(calls: Calls, parent: string): Promise<Staged | undefined> {
  const dir = join(parent, newStagingName('d'))
  await mkdir(dir, 0o700)
  const file = join(dir, 'content')
  let handle: FileHandle
  try {
    handle = await open(file, CREATE, 0o666)
  } catch (error) {
    // An empty staging directory is anyone's to remove: a sweep took it before `content` existed.
    if (errnoCode(error) === 'ENOENT') return undefined
    await rmdir(dir).catch(() => {})
    throw error
  }
  const created = await claim(calls, handle, file)
  if (created !== undefined) return { file, dir, handle, created }
  await handle.close().catch(() => {})
  await rmdir(dir).catch(() => {})
  return undefined
}

/**
 * Removes what is left of a staging: the staged name (unless it was renamed away), then its
 * directory; the descriptor, and with it the lock, is closed last, so no sweep ever judges a
 * staging whose writer is still removing it.
 */
export async function removeStaged(staged: Staged, renamed: boolean): Promise<void> {
  if (!renamed) await unlink(staged.file).catch(() => {})
  if (staged.dir !== undefined) await rmdir(staged.dir).catch(() => {})
}

/**
 * Opens `path` (never through a link) and takes a lock on it, shared or exclusive: the descriptor
 * when the lock is ours and the name still leads to it, else `undefined` (busy, gone, not ours to
 * open, or no kernel locks).
 */
async function lockIfFree(calls: Calls, path: string, exclusive: boolean): Promise<FileHandle | undefined> {
  const flags = (exclusive ? constants.O_RDWR : constants.O_RDONLY) | constants.O_NOFOLLOW | constants.O_NONBLOCK
  const handle = await open(path, flags).catch(() => undefined)
  if (handle === undefined) return undefined
  if (tryHold(handle.fd, !exclusive) === 'held') {
    const [mine, named] = await Promise.all([calls.fstat(handle), calls.lstat(path).catch(() => undefined)])
    if (named !== undefined && named.ino === mine.ino && mine.isFile()) return handle
  }
  await handle.close().catch(() => {})
  return undefined
}

/** Unlinks `path` while holding a lock that proves nobody uses it; `true` if it went. */
async function removeIfFree(calls: Calls, path: string, exclusive: boolean): Promise<boolean> {
  const handle = await lockIfFree(calls, path, exclusive)
  if (handle === undefined) return false
  try {
    await unlink(path)
    return true
  } catch {
    return false
  } finally {
    await handle.close().catch(() => {})
  }
}

/** Whether `path` is an entry of our user, of the type its kind makes. */
async function isOurs(calls: Calls, path: string, directory: boolean): Promise<boolean> {
  const stats = await calls.lstat(path).catch(() => undefined)
  if (stats === undefined || (EUID >= 0 && stats.uid !== EUID)) return false
  return directory ? stats.isDirectory() && (stats.mode & 0o077) === 0 : stats.isFile()
}

/**
 * Removes one abandoned entry of ours: a staged file or lock nobody holds a lock on, a staging
 * directory that is empty (a writer that meets it gone stages again) or whose `content` nobody
 * holds. Anything else, anything of another user, and anything on a filesystem without kernel
 * locks is left alone.
 */
async function reclaimEntry(calls: Calls, dir: string, name: string): Promise<boolean> {
  const kind = stagingKindOf(name)
  const path = join(dir, name)
  if (kind === undefined || !(await isOurs(calls, path, kind === 'd'))) return false
  // A writer takes an exclusive lock: a shared one here is refused while it lives.
  if (kind === 'f') return removeIfFree(calls, path, false)
  // A writer of the lock takes it exclusively too; only a free lock can be taken that way.
  if (kind === 'l') return removeIfFree(calls, path, true)
  const members = await readdir(path)
  if (members.length > 1 || (members.length === 1 && members[0] !== 'content')) return false
  if (members.length === 1 && !(await removeIfFree(calls, join(path, 'content'), false))) return false
  return rmdir(path).then(() => true, () => false)
}

/**
 * Removes the abandoned staging and locks in `dir` (`listed`: its names, when already read);
 * returns how many entries went. Never throws.
 */
export async function reclaimStaging(dir: string, listed?: string[], calls: Calls = POOLED_CALLS): Promise<number> {
  try {
    const names = (listed ?? await readdir(dir)).filter(isStagingName)
    let removed = 0
    for (const name of names) {
      if (await reclaimEntry(calls, dir, name).catch(() => false)) removed++
    }
    return removed
  } catch {
    return 0
  }
}
