import { FsError } from '@deepseek-ai/dsh-fs'
import { createHash, randomBytes } from 'node:crypto'
import { link, lstat, readdir, readFile, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { errnoCode } from './errors'
import { isDeadWriter, makeStaging, selfIdentity, STAGING_PREFIX, type WriterIdentity } from './staging'

/**
 * A cross-process lock around the last version check and the replacing rename of one target.
 * The in-process `KeyedLock` cannot see other processes: two of them could both re-check the
 * version they read, both find it current, and both rename, so one reported success would be
 * silently lost. Every LocalDisk (in any process) takes this lock for that short step, which makes
 * `replaceIfVersion` and version-guarded edits exact between providers. Writers that do not use
 * this provider are not represented by it (the contract promises nothing about them).
 *
 * The lock is a symlink `.dsh-staging.lock.<hash of the name>` beside the target whose link text is
 * the holder's identity (boot id, pid, start time). `symlink(2)` creates it atomically with its
 * content and fails with EEXIST while it is held, so taking the lock is one call, releasing it one
 * `unlink`, and its owner is never missing. A holder killed inside the step leaves the lock behind;
 * the next writer that finds it held by a dead process reclaims it.
 *
 * On a filesystem without symlinks the lock is a directory holding an `owner` file, taken by
 * renaming a fully built private directory onto the lock name (a rename onto a non-empty
 * directory fails). Every process on one filesystem gets the same answer, so the two never mix.
 */
export const LOCK_PREFIX = `${STAGING_PREFIX}lock.`

const WAIT_LIMIT_MS = 10_000

/** `symlink(2)` refused by the filesystem itself (not by the lock being held). */
const NO_SYMLINKS = new Set(['EPERM', 'EOPNOTSUPP', 'ENOTSUP', 'ENOSYS'])

export function lockPathOf(destination: string): string {
  const hash = createHash('sha256').update(basename(destination)).digest('hex').slice(0, 16)
  return join(dirname(destination), `${LOCK_PREFIX}${hash}`)
}

/** Releases a held publication lock. */
export type ReleaseLock = () => Promise<void>

/** Takes the publication lock of `destination`, waiting for a live holder and reclaiming a dead one. */
export async function acquirePublishLock(destination: string, display: string): Promise<ReleaseLock> {
  const lock = lockPathOf(destination)
  const deadline = Date.now() + WAIT_LIMIT_MS
  for (let attempt = 0; ; attempt++) {
    const release = await tryAcquire(lock)
    if (release !== undefined) return release
    if (await reclaimIfDead(lock)) continue
    if (Date.now() > deadline) {
      throw new FsError('FS_IO_ERROR', `${display}: another writer kept the publication lock for ${WAIT_LIMIT_MS} ms`, { path: display })
    }
    // The step under the lock is a stat and a rename: short, jittered waits suffice.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * Math.min(2 + attempt, 20)))
  }
}

let symlinksUnsupported = false

async function tryAcquire(lock: string): Promise<ReleaseLock | undefined> {
  if (!symlinksUnsupported) {
    try {
      await symlink(JSON.stringify(selfIdentity()), lock)
      return () => unlink(lock).catch(() => {})
    } catch (error) {
      const code = errnoCode(error)
      if (code === 'EEXIST') return undefined
      if (!NO_SYMLINKS.has(code ?? '')) throw error
      symlinksUnsupported = true
    }
  }
  return (await tryAcquireDirectory(lock)) ? () => rm(lock, { recursive: true, force: true }).catch(() => {}) : undefined
}

async function tryAcquireDirectory(lock: string): Promise<boolean> {
  // Built under a staging name, so a writer killed before the rename leaves reclaimable residue.
  const built = await makeStaging(dirname(lock))
  try {
    await writeFile(join(built, 'owner'), JSON.stringify(selfIdentity()))
    await rename(built, lock)
    return true
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false
    throw error
  } finally {
    await rm(built, { recursive: true, force: true }).catch(() => {})
  }
}

/** The identity a lock (symlink or directory) names, or `undefined` when it cannot be read. */
async function ownerOf(lock: string): Promise<WriterIdentity | undefined> {
  try {
    let text: string
    try {
      text = await readlink(lock)
    } catch (error) {
      // EINVAL: not a symlink, so the directory form.
      if (errnoCode(error) !== 'EINVAL') return undefined
      text = await readFile(join(lock, 'owner'), 'utf8')
    }
    return JSON.parse(text) as WriterIdentity
  } catch {
    return undefined
  }
}

/** A fresh name for a lock being reclaimed: staging residue of this process if we die holding it. */
function tombOf(lock: string): string {
  const me = selfIdentity()
  const suffix = randomBytes(6).toString('base64url').replace(/[^A-Za-z0-9]/g, '0').slice(0, 6)
  return join(dirname(lock), `${STAGING_PREFIX}${me.boot}.${me.pid}.${me.start}.${suffix}`)
}

/**
 * Removes a lock whose holder is certainly dead. It is first renamed to a private name (only one
 * reclaimer can do that) and its owner read again there: if a live writer took the lock in
 * between, it is put back (never over a lock taken since) rather than removed.
 */
async function reclaimIfDead(lock: string): Promise<boolean> {
  const owner = await ownerOf(lock)
  if (owner === undefined || !(await isDeadWriter(owner))) return false
  const tomb = tombOf(lock)
  try {
    await rename(lock, tomb)
  } catch {
    return true // someone else moved it first: just try again
  }
  const moved = await ownerOf(tomb)
  if (moved !== undefined && JSON.stringify(moved) !== JSON.stringify(owner)) {
    // link(2) does not follow a symlink and never replaces; a directory lock cannot be renamed
    // onto a lock taken meanwhile either (that one is not empty).
    const isLink = await lstat(tomb).then((stats) => stats.isSymbolicLink(), () => false)
    await (isLink ? link(tomb, lock) : rename(tomb, lock)).catch(() => {})
  }
  await rm(tomb, { recursive: true, force: true }).catch(() => {})
  return true
}

/** Removes the locks dead writers left in `dir` (run with the staging sweep). */
export async function reclaimDeadLocks(dir: string, listed?: string[]): Promise<void> {
  let names: string[]
  try {
    names = listed ?? await readdir(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (name.startsWith(LOCK_PREFIX)) await reclaimIfDead(join(dir, name)).catch(() => {})
  }
}
