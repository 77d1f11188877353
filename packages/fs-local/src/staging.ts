import { fsError } from '@deepseek-ai/dsh-fs'
import * as crypto from 'node:crypto'
import { constants } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type Calls, type Descriptor, POOLED_CALLS } from './calls'
import { errnoCode } from './errors'
import { tryHold } from './kernel-lock'

/**
 * A write is staged beside its target as `.dsh-staging.f.<16 hex of the name's hash>.<8 hex check>`,
 * created exclusively: that name is the target's publication lock across processes until the
 * `rename` or `link` that publishes it. Its writer holds a kernel lock on it (`kernel-lock.ts`), so a
 * staged file that can be locked is a dead writer's, and only then removed. The check digits keep a
 * user's look-alike an ordinary file.
 */
export const STAGING_PREFIX = '.dsh-staging.'

const PATTERN = /^\.dsh-staging\.f\.([0-9a-f]{16})\.([0-9a-f]{8})$/
// One-shot `hash` (Node ≥ 20.12) is about 3× cheaper than a `Hash` object; every write names two.
const sha256 = typeof crypto.hash === 'function' ? (text: string) => crypto.hash('sha256', text, 'hex') : (text: string) => crypto.createHash('sha256').update(text).digest('hex')
const checkOf = (body: string) => sha256(`dsh-staging f.${body}`).slice(0, 8)

/** The name a write of the entry `name` of a directory is staged under: one per target. */
export function stagedNameOf(name: string): string {
  const body = sha256(name).slice(0, 16)
  return `${STAGING_PREFIX}f.${body}.${checkOf(body)}`
}

export function isStagingName(name: string): boolean {
  const match = name.startsWith(STAGING_PREFIX) ? PATTERN.exec(name) : null
  return match !== null && checkOf(match[1]!) === match[2]
}

export interface Staged {
  /** The staged file (the name that is renamed or linked into place). */
  file: string
  handle: Descriptor
  /** What the staged file got at its creation (owner, group, mode after the umask). */
  created: { uid: number; gid: number; mode: number }
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
/** Not a liveness judgement: how long a write waits for another live writer of its target before it gives up, unchanged. */
const WAIT_LIMIT_MS = 10_000
const EUID = typeof process.geteuid === 'function' ? process.geteuid() : -1

/** The lock on a file created at `path` and its `fstat`, or `undefined` when a sweep took the name between the two. */
async function claim(calls: Calls, handle: Descriptor, path: string): Promise<Staged['created'] | undefined> {
  const held = tryHold(handle.fd)
  if (held === 'busy') return undefined
  const [mine, named] = await Promise.all([handle.stat(), held === 'held' ? calls.lstat(path, { bigint: true }).catch(() => undefined) : undefined])
  const kept = held === 'unsupported' || (named !== undefined && named.ino === mine.ino && named.dev === mine.dev)
  return kept ? { uid: Number(mine.uid), gid: Number(mine.gid), mode: Number(mine.mode) } : undefined
}

/** Creates the staged file of `name` in `parent` (anchored) with `mode` (new: 0o666, for umask and default ACL), waiting while a live writer holds it. */
export async function makeStaged(calls: Calls, parent: string, name: string, mode: number, display: string): Promise<Staged> {
  const file = join(parent, stagedNameOf(name))
  const deadline = Date.now() + WAIT_LIMIT_MS
  for (let attempt = 1; ; attempt++) {
    const made = await stagedFile(calls, file, mode)
    if (made !== 'busy' && made !== undefined) return made
    if (Date.now() > deadline) throw busy(display, made === 'busy' ? stagedNameOf(name) : undefined)
    if (made === 'busy') await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * Math.min(2 + attempt, 20)))
  }
}

function busy(display: string, name: string | undefined) {
  const reason = name === undefined
    ? `was not written: its staged file was taken away for ${WAIT_LIMIT_MS / 1000} s; nothing changed`
    : `was not written: another writer kept it staged (${name}) for ${WAIT_LIMIT_MS / 1000} s, or left it on a filesystem without kernel locks, where a dead writer cannot be told from a live one; nothing changed`
  return fsError('FS_IO_ERROR', { path: display, reason })
}

async function stagedFile(calls: Calls, file: string, mode: number): Promise<Staged | 'busy' | undefined> {
  let handle: Descriptor
  try {
    handle = await calls.open(file, CREATE, mode)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    return (await removeIfFree(calls, file)) ? undefined : 'busy'
  }
  const created = await claim(calls, handle, file)
  if (created !== undefined) return { file, handle, created }
  await handle.close().catch(() => {})
  return undefined
}

/** Removes an unpublished staging: the name, then the descriptor and its lock. */
export async function discard(calls: Calls, staged: Staged): Promise<void> {
  await calls.unlink(staged.file).catch(() => {})
  await staged.handle.close().catch(() => {})
}

/**
 * Unlinks `path` if nobody holds a lock on it, holding an exclusive lock while the name, checked to
 * still lead to the inode locked, goes. Exclusive, so two sweeps never both judge one inode (with
 * shared locks the second unlinked a name a new writer had just created: a lost update in 300 races).
 */
async function removeIfFree(calls: Calls, path: string): Promise<boolean> {
  const handle = await calls.open(path, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined)
  if (handle === undefined) return false
  try {
    if (tryHold(handle.fd) !== 'held') return false
    const [mine, named] = await Promise.all([handle.stat(), calls.lstat(path, { bigint: true }).catch(() => undefined)])
    if (named?.ino !== mine.ino || named.dev !== mine.dev || !mine.isFile() || (EUID >= 0 && Number(mine.uid) !== EUID)) return false
    await calls.unlink(path)
    return true
  } catch {
    return false
  } finally {
    await handle.close().catch(() => {})
  }
}

/** Removes the abandoned staging in `dir` (`listed`: its names, when already read), in the pool: as many files as the directory holds; returns how many went. Never throws. */
export async function reclaimStaging(dir: string, listed?: string[], calls: Calls = POOLED_CALLS): Promise<number> {
  try {
    let removed = 0
    for (const name of (listed ?? await readdir(dir)).filter(isStagingName)) {
      if (await removeIfFree(calls, join(dir, name))) removed++
    }
    return removed
  } catch {
    return 0
  }
}
