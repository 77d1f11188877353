import { fsError } from '@deepseek-ai/dsh-fs'
import { constants, type Stats } from 'node:fs'
import { type FileHandle, mkdir, open, readdir, rmdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { type Calls, POOLED_CALLS } from './calls'
import { errnoCode } from './errors'
import { tryHold } from './kernel-lock'
import { isStagingName, newStagingName, stagedNameOf, stagingKindOf, STAGING_PREFIX } from './names'

export { isStagingName, STAGING_PREFIX }

/**
 * Bytes waiting beside their destination. A new file, whose mode and default ACL must come from its
 * creation, is staged as `content` in a private (0700) directory `.dsh-staging.d.<random>…`. A
 * replacement is staged in a file of its own named after its target, `.dsh-staging.f.<hash>…`
 * (readable by its owner only until it takes the old file's mode): created exclusively, that one
 * name is also the target's publication lock across processes. While it exists no other writer
 * can stage (let alone rename over) that target, and the `rename` that publishes it releases it.
 *
 * Its writer holds an exclusive kernel lock on the staged file from its creation until its
 * descriptor closes (`kernel-lock.ts`), which the kernel drops when the writer dies in whatever
 * PID namespace: a staged file that can be locked is a dead writer's, and only then is it removed,
 * while locked. Nothing is judged by age or pid.
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
/**
 * How long a write waits for its staging before it gives up (nothing is written): for another
 * writer of its target to publish, or, where writers contend, for a staged name not taken by a
 * sweep or a waiter in the moment between its creation and its writer's lock.
 */
const WAIT_LIMIT_MS = 10_000
const EUID = typeof process.geteuid === 'function' ? process.geteuid() : -1

/**
 * Takes the writer's lock on a file just created at `path` and returns its `fstat`. A sweep may
 * have opened and locked it between the creation and this lock (it then removes it): the lock is
 * ours and the name still ours only when the name still leads to the inode we hold. Where there
 * are no kernel locks the staging is simply never reclaimed by anyone.
 */
async function claim(calls: Calls, handle: FileHandle, path: string): Promise<Stats | undefined> {
  const held = tryHold(handle.fd)
  if (held === 'busy') return undefined
  const [mine, named] = await Promise.all([calls.fstat(handle), held === 'held' ? calls.lstat(path).catch(() => undefined) : undefined])
  if (held === 'unsupported') return mine
  return named !== undefined && named.ino === mine.ino && named.dev === mine.dev ? mine : undefined
}

/**
 * Creates the staged file of a write inside `parent` (anchored and checked by the caller): for a
 * replacement of the entry `replacing.name`, the file named after it with `replacing.mode`, waiting
 * while another live writer holds that name; for a new file (`replacing` undefined), `content`
 * (0o666, the umask applies) in a new private directory.
 */
export async function makeStaged(calls: Calls, parent: string, replacing: { name: string; mode: number } | undefined, display: string): Promise<Staged> {
  const deadline = Date.now() + WAIT_LIMIT_MS
  for (let attempt = 1; ; attempt++) {
    const made = replacing === undefined ? await stagedInDirectory(calls, parent) : await stagedFile(calls, parent, replacing.name, replacing.mode)
    if (made !== 'busy' && made !== undefined) return made
    if (Date.now() > deadline) {
      if (made === 'busy') throw busy(display, stagedNameOf(replacing!.name))
      throw fsError('FS_IO_ERROR', { path: display, reason: `was not written: its staged file was taken away for ${WAIT_LIMIT_MS / 1000} s; nothing changed` })
    }
    // Another writer of this target is between its staging and its rename: short, jittered waits.
    if (made === 'busy') await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * Math.min(2 + attempt, 20)))
  }
}

function busy(display: string, name: string) {
  return fsError('FS_IO_ERROR', {
    path: display,
    reason: `was not written: another writer kept it staged (${name}) for ${WAIT_LIMIT_MS / 1000} s, or left it on a filesystem without kernel locks, where a dead writer cannot be told from a live one; nothing changed`,
  })
}

/** The staged replacement, `busy` while another writer holds its name, `undefined` when a sweep took it first. */
async function stagedFile(calls: Calls, parent: string, name: string, mode: number): Promise<Staged | 'busy' | undefined> {
  const file = join(parent, stagedNameOf(name))
  let handle: FileHandle
  try {
    handle = await open(file, CREATE, mode)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    // Held by a live writer, or left by a dead one (removed here, and the name tried again).
    return (await removeIfFree(calls, file)) ? undefined : 'busy'
  }
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
 * Unlinks `path` (never through a link) if nobody holds a lock on it: an exclusive lock is taken
 * and kept while the name, checked to still lead to the inode locked, is unlinked. Exclusive, so
 * two sweeps never both judge one inode: with shared locks, the second could unlink the name a
 * new writer had just created in the first's wake (a lost update, seen once in 300 races).
 */
async function removeIfFree(calls: Calls, path: string): Promise<boolean> {
  const handle = await open(path, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined)
  if (handle === undefined) return false
  try {
    if (tryHold(handle.fd) !== 'held') return false
    const [mine, named] = await Promise.all([calls.fstat(handle), calls.lstat(path).catch(() => undefined)])
    if (named?.ino !== mine.ino || named.dev !== mine.dev || !mine.isFile()) return false
    if (EUID >= 0 && mine.uid !== EUID) return false
    await unlink(path)
    return true
  } catch {
    return false
  } finally {
    await handle.close().catch(() => {})
  }
}

/**
 * Removes one abandoned entry of ours: a staged file nobody holds a lock on, or a staging
 * directory that is ours (0700), and empty (a writer that meets it gone stages again) or holding a
 * `content` nobody holds. Anything else, anything of another user, and anything on a filesystem
 * without kernel locks is left alone.
 */
async function reclaimEntry(calls: Calls, dir: string, name: string): Promise<boolean> {
  const kind = stagingKindOf(name)
  const path = join(dir, name)
  if (kind === 'f') return removeIfFree(calls, path)
  if (kind !== 'd') return false
  const stats = await calls.lstat(path).catch(() => undefined)
  if (stats === undefined || !stats.isDirectory() || (stats.mode & 0o077) !== 0 || (EUID >= 0 && stats.uid !== EUID)) return false
  const members = await readdir(path)
  if (members.length > 1 || (members.length === 1 && members[0] !== 'content')) return false
  if (members.length === 1 && !(await removeIfFree(calls, join(path, 'content')))) return false
  return rmdir(path).then(() => true, () => false)
}

/**
 * Removes the abandoned staging in `dir` (`listed`: its names, when already read); returns how
 * many entries went. Never throws.
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
