import { fsError } from '../../fs/src/index'
import { createHash } from 'node:crypto'
import { readdir, readFile, rm, writeFile, link, rename, symlink, unlink } from 'node:fs/promises'
import { lstat, readlink } from './calls'
import { basename, dirname, join } from 'node:path'
import { errnoCode } from './errors'
import { pidVerdict, probeLiveness, selfIdentity, type WriterIdentity } from './liveness'
import { makeStaging, removeStaging, STAGING_PREFIX, withDirectory } from './staging'

/**
 * A cross-process lock around the last version check and the replacing rename of one target.
 * The in-process `KeyedLock` cannot see other processes: two of them could both re-check the
 * version they read, both find it current, and both rename, so one reported success would be
 * silently lost. Every LocalDisk (in any process, in any PID namespace) takes this lock for that
 * short step, which makes `replaceIfVersion` and version-guarded edits exact between providers.
 *
 * The lock is the name `.dsh-staging.lock.<hash of the name>` beside the target, created atomically
 * (it fails with EEXIST while held) and released with one `unlink`. Its preferred form is a hard
 * link to the liveness socket of the writer's staging directory: that socket was listening before
 * the link existed and stops only when the holder releases it after the unlink or dies, so a
 * refused `connect` proves the holder dead in any namespace, with no clock involved. Where hard
 * links or sockets are missing, the lock is a symlink naming its holder (boot, PID namespace, pid,
 * start time); without symlinks, a directory holding an `owner` file (and the socket of the
 * directory it was built from). A holder named only by identity is proven dead by its pid inside
 * its own namespace; from outside, its lock is reclaimed only once it is older than `LEASE_MS`,
 * far longer than the stat and rename it guards. Every form fails the others' creation, so
 * processes whose filesystems answered differently still exclude each other. A socket lock of
 * another user, who may not be connected to, is also judged by that lease.
 */
export const LOCK_PREFIX = `${STAGING_PREFIX}lock.`

const WAIT_LIMIT_MS = 10_000
export const LEASE_MS = 5_000

/** `link(2)` or `symlink(2)` refused by the filesystem itself (not by the lock being held). */
const UNSUPPORTED = new Set(['EPERM', 'EOPNOTSUPP', 'ENOTSUP', 'ENOSYS', 'EMLINK', 'EXDEV'])

// Lock names of recently written names: a burst of writes to one file hashes its name once.
const lockNames = new Map<string, string>()

export function lockPathOf(destination: string): string {
  const name = basename(destination)
  let lock = lockNames.get(name)
  if (lock === undefined) {
    if (lockNames.size >= 256) lockNames.clear()
    lock = `${LOCK_PREFIX}${createHash('sha256').update(name).digest('hex').slice(0, 16)}`
    lockNames.set(name, lock)
  }
  return join(dirname(destination), lock)
}

/** Releases a held publication lock. */
export type ReleaseLock = () => Promise<void>

/**
 * Takes the publication lock of `destination`, waiting for a live holder and reclaiming a dead one.
 * `socket` is the caller's liveness socket (it must keep listening until the lock is released).
 */
export async function acquirePublishLock(destination: string, display: string, socket?: string): Promise<ReleaseLock> {
  const lock = lockPathOf(destination)
  const deadline = Date.now() + WAIT_LIMIT_MS
  for (let attempt = 0; ; attempt++) {
    const release = await tryAcquire(lock, socket)
    if (release !== undefined) return release
    if (await reclaimIfDead(lock)) continue
    if (Date.now() > deadline) {
      throw fsError('FS_IO_ERROR', { path: display, reason: `could not be written: another writer kept its publication lock for ${WAIT_LIMIT_MS} ms` })
    }
    // The step under the lock is a stat and a rename: short, jittered waits suffice.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * Math.min(2 + attempt, 20)))
  }
}

let linksUnsupported = false
let symlinksUnsupported = false

async function tryAcquire(lock: string, socket: string | undefined): Promise<ReleaseLock | undefined> {
  const release = () => unlink(lock).catch(() => {})
  if (socket !== undefined && !linksUnsupported) {
    try {
      await link(socket, lock)
      return release
    } catch (error) {
      const code = errnoCode(error)
      if (code === 'EEXIST') return undefined
      if (!UNSUPPORTED.has(code ?? '')) throw error
      linksUnsupported = true
    }
  }
  if (!symlinksUnsupported) {
    try {
      await symlink(JSON.stringify(selfIdentity()), lock)
      return release
    } catch (error) {
      const code = errnoCode(error)
      if (code === 'EEXIST') return undefined
      if (!UNSUPPORTED.has(code ?? '')) throw error
      symlinksUnsupported = true
    }
  }
  return tryAcquireDirectory(lock)
}

async function tryAcquireDirectory(lock: string): Promise<ReleaseLock | undefined> {
  // Built in a staging directory, so a writer killed before the rename leaves reclaimable residue;
  // its socket moves with it and keeps listening for as long as the lock is held.
  const built = await makeStaging(dirname(lock))
  try {
    await writeFile(join(built.dir, 'owner'), JSON.stringify(selfIdentity()))
    await rename(built.dir, lock)
  } catch (error) {
    await removeStaging(built)
    const code = errnoCode(error)
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return undefined
    throw error
  }
  return async () => {
    await rm(lock, { recursive: true, force: true }).catch(() => {})
    await removeStaging(built)
  }
}

/** What holds a lock name: enough to judge its holder and to tell it from a lock taken since. */
interface Holder {
  ino: number
  ctimeMs: number
  /** The path of a liveness socket to probe, when the lock carries one. */
  socket?: string
  owner?: WriterIdentity
}

/** The holder of `lock`, or `undefined` when it is gone or is nothing this module makes. */
async function holderOf(lock: string): Promise<Holder | undefined> {
  try {
    const stats = await lstat(lock)
    const held = { ino: stats.ino, ctimeMs: stats.ctimeMs }
    if (stats.isSocket()) return { ...held, socket: lock }
    if (stats.isSymbolicLink()) return { ...held, owner: parseOwner(await readlink(lock)) }
    if (!stats.isDirectory()) return undefined
    const socket = join(lock, 'live')
    const hasSocket = await lstat(socket).then((entry) => entry.isSocket(), () => false)
    return { ...held, owner: parseOwner(await readFile(join(lock, 'owner'), 'utf8')), ...(hasSocket ? { socket } : {}) }
  } catch {
    return undefined
  }
}

function parseOwner(text: string): WriterIdentity | undefined {
  try {
    const owner = JSON.parse(text) as Partial<WriterIdentity>
    if (typeof owner.boot !== 'string' || typeof owner.pid !== 'number' || typeof owner.start !== 'string') return undefined
    // A lock written without a namespace is judged as one from an unknown namespace.
    return { boot: owner.boot, ns: typeof owner.ns === 'string' ? owner.ns : '?', pid: owner.pid, start: owner.start }
  } catch {
    return undefined
  }
}

async function isDead(holder: Holder): Promise<boolean> {
  if (holder.socket !== undefined) {
    const verdict = await probeLiveness(holder.socket)
    // Another user's socket that we may not connect to is judged like a holder we cannot see.
    if (verdict !== 'denied') return verdict === 'dead'
    return Date.now() - holder.ctimeMs >= LEASE_MS
  }
  if (holder.owner === undefined) return false
  const byPid = await pidVerdict(holder.owner)
  if (byPid !== 'unknown') return byPid === 'dead'
  return Date.now() - holder.ctimeMs >= LEASE_MS
}

/**
 * Removes a lock whose holder is certainly dead. It is first renamed into a private staging
 * directory of ours (only one reclaimer can do that, and if we die there the directory is our
 * residue) and looked at again: if a live writer took the lock in between, it is put back (never
 * over a lock taken since) rather than removed.
 */
async function reclaimIfDead(lock: string): Promise<boolean> {
  const holder = await holderOf(lock)
  if (holder === undefined || !(await isDead(holder))) return false
  const grave = await makeStaging(dirname(lock))
  const tomb = join(grave.dir, 'tomb')
  try {
    try {
      await rename(lock, tomb)
    } catch {
      return true // someone else moved it first: just try again
    }
    // The same holder, still dead: a socket is asked again, an identity compared.
    const moved = await holderOf(tomb)
    const same = moved !== undefined && moved.ino === holder.ino && (moved.socket !== undefined
      ? (await probeLiveness(moved.socket)) !== 'alive'
      : JSON.stringify(moved.owner) === JSON.stringify(holder.owner))
    if (moved !== undefined && !same) {
      // link(2) does not follow a symlink and never replaces; a directory lock cannot be renamed
      // onto a lock taken meanwhile either (that one is not empty).
      const isDirectory = await lstat(tomb).then((stats) => stats.isDirectory(), () => false)
      await (isDirectory ? rename(tomb, lock) : link(tomb, lock)).catch(() => {})
    }
    await rm(tomb, { recursive: true, force: true }).catch(() => {})
    return true
  } finally {
    await removeStaging(grave)
  }
}

/** Removes the locks dead writers left in `dir` (run with the staging sweep). */
export async function reclaimDeadLocks(dir: string, listed?: string[]): Promise<void> {
  await withDirectory(dir, async (path) => {
    const names = listed ?? await readdir(path)
    for (const name of names) {
      if (name.startsWith(LOCK_PREFIX)) await reclaimIfDead(join(path, name)).catch(() => {})
    }
  }).catch(() => {})
}
