import { FsError } from '@deepseek-ai/dsh-fs'
import { createHash } from 'node:crypto'
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
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
 * The lock is a directory `.dsh-staging.lock.<hash of the name>` beside the target holding an
 * `owner` file with the holder's identity. It is taken by renaming a fully built private directory
 * onto that name: a rename onto a non-empty directory fails, so taking it is atomic and the owner
 * is never missing. A holder killed inside the step leaves the lock behind; the next writer that
 * finds it held by a dead process reclaims it.
 */
export const LOCK_PREFIX = `${STAGING_PREFIX}lock.`

const WAIT_LIMIT_MS = 10_000

export function lockPathOf(destination: string): string {
  const hash = createHash('sha256').update(basename(destination)).digest('hex').slice(0, 16)
  return join(dirname(destination), `${LOCK_PREFIX}${hash}`)
}

export async function withPublishLock<T>(destination: string, display: string, task: () => Promise<T>): Promise<T> {
  const lock = lockPathOf(destination)
  const deadline = Date.now() + WAIT_LIMIT_MS
  for (let attempt = 0; !(await tryAcquire(lock)); attempt++) {
    if (await reclaimIfDead(lock)) continue
    if (Date.now() > deadline) {
      throw new FsError('FS_IO_ERROR', `${display}: another writer kept the publication lock for ${WAIT_LIMIT_MS} ms`, { path: display })
    }
    // The step under the lock is a stat and a rename: short, jittered waits suffice.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * Math.min(2 + attempt, 20)))
  }
  try {
    return await task()
  } finally {
    await rm(lock, { recursive: true, force: true }).catch(() => {})
  }
}

async function tryAcquire(lock: string): Promise<boolean> {
  // Built under a staging name, so a writer killed before the rename leaves reclaimable residue.
  const built = await makeStaging(dirname(lock))
  try {
    await writeFile(join(built, 'owner'), JSON.stringify(selfIdentity()))
    await rename(built, lock)
    return true
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false
    throw error
  } finally {
    await rm(built, { recursive: true, force: true }).catch(() => {})
  }
}

async function ownerOf(lock: string): Promise<WriterIdentity | undefined> {
  try {
    return JSON.parse(await readFile(join(lock, 'owner'), 'utf8')) as WriterIdentity
  } catch {
    return undefined
  }
}

/**
 * Removes a lock whose holder is certainly dead. It is first renamed to a private name (only one
 * reclaimer can do that) and its owner read again there: if a live writer took the lock in
 * between, it is put back rather than removed.
 */
async function reclaimIfDead(lock: string): Promise<boolean> {
  const owner = await ownerOf(lock)
  if (owner === undefined || !(await isDeadWriter(owner))) return false
  const tomb = await makeStaging(dirname(lock))
  try {
    await rename(lock, tomb)
  } catch {
    await rm(tomb, { recursive: true, force: true }).catch(() => {})
    return true // someone else moved it first: just try again
  }
  const moved = await ownerOf(tomb)
  if (moved !== undefined && JSON.stringify(moved) !== JSON.stringify(owner)) {
    await rename(tomb, lock).catch(() => {})
  }
  await rm(tomb, { recursive: true, force: true }).catch(() => {})
  return true
}

/** Removes the locks dead writers left in `dir` (run with the staging sweep). */
export async function reclaimDeadLocks(dir: string): Promise<void> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (name.startsWith(LOCK_PREFIX)) await reclaimIfDead(join(dir, name)).catch(() => {})
  }
}
