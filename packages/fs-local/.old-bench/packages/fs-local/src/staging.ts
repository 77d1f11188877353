import { constants, existsSync, statSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { type FileHandle, open, readdir, rm, link, mkdtemp, rename, rmdir, unlink } from 'node:fs/promises'
import { callsInline, lstat } from './calls'
import { errnoCode } from './errors'
import { join } from 'node:path'
import { GRACE_MS, listenLiveness, type Liveness, MAX_SOCKET_PATH, pidVerdict, probeLiveness, selfIdentity, sharedLiveness, type WriterIdentity } from './liveness'

/**
 * A replacement is staged in a file beside its target, `.dsh-staging.f.<boot>.<pidns>.<pid>.<start>.<random>`
 * (created exclusively, readable by its owner only until it takes the old file's mode), with its
 * writer's liveness socket beside it as the same name plus `.live` (see `makeStagedFile` for when):
 * no directory to make and remove around a write. Everything else (a new file, whose mode and
 * default ACL must come from its creation in the directory) is staged in a directory.
 *
 * Staging directories are named `.dsh-staging.<kind>.<boot>.<pidns>.<pid>.<start>.<random>` and
 * made `0700` by `mkdtemp`. Kind `s` holds a liveness socket `live`, bound before anything else is
 * put in the directory; kind `p` (where no socket fits or binds) is judged by its pid alone, which
 * only a process of the same boot and PID namespace may read. Besides `live` a staging directory
 * holds only `content` (the staged file), `owner` (a directory-form lock being built) or `tomb`
 * (a dead writer's lock being reclaimed). Nothing of another shape is ever removed, so a user's own
 * `.dsh-staging.notes` survives every sweep.
 */
export const STAGING_PREFIX = '.dsh-staging.'

const PATTERN = /^\.dsh-staging\.([sp])\.([0-9a-f]{8}|nobootid)\.(\d+|x)\.(\d+)\.(\d+|x)\.[A-Za-z0-9]{6}$/
const FILE_PATTERN = /^\.dsh-staging\.f\.([0-9a-f]{8}|nobootid)\.(\d+|x)\.(\d+)\.(\d+|x)\.[A-Za-z0-9]{6}(\.live)?$/
const LOCK_PATTERN = /^\.dsh-staging\.lock\.[0-9a-f]{16}$/
// Earlier versions named staging without kind and PID namespace: removed only once its boot ended.
const LEGACY_PATTERN = /^\.dsh-staging\.([0-9a-f]{8}|nobootid)\.(\d+)\.(\d+|x)\.[A-Za-z0-9]{6}$/
const MEMBERS = new Set(['live', 'content', 'owner', 'tomb'])
const CAN_ANCHOR = process.platform === 'linux' && existsSync('/proc/self/fd')
const EUID = typeof process.geteuid === 'function' ? process.geteuid() : -1

export interface StagingName extends WriterIdentity {
  kind: 's' | 'p'
}

/** A staging directory's name, parsed (`undefined` for every other name, staged files included). */
export function parseStagingName(name: string): StagingName | undefined {
  const legacy = LEGACY_PATTERN.exec(name)
  if (legacy) return { kind: 'p', boot: legacy[1]!, ns: '?', pid: Number(legacy[2]), start: legacy[3]! }
  const match = PATTERN.exec(name)
  if (!match) return undefined
  return { kind: match[1] as 's' | 'p', boot: match[2]!, ns: match[3]!, pid: Number(match[4]), start: match[5]! }
}

/** A staged file's name (or its socket's, `socket` set), parsed. */
export function parseStagedFileName(name: string): (WriterIdentity & { socket: boolean }) | undefined {
  const match = FILE_PATTERN.exec(name)
  if (!match) return undefined
  return { boot: match[1]!, ns: match[2]!, pid: Number(match[3]), start: match[4]!, socket: match[5] !== undefined }
}

/** Whether `name` is one dsh makes (staging, staged file, tomb holder or publication lock): hidden from listings. */
export function isStagingName(name: string): boolean {
  return name.startsWith(STAGING_PREFIX) && (PATTERN.test(name) || FILE_PATTERN.test(name) || LOCK_PATTERN.test(name) || LEGACY_PATTERN.test(name))
}

/** A private staging directory, and the socket that shows its writer is alive. */
export interface Staging {
  dir: string
  live: Liveness | undefined
  /** The unlink of the socket's name, once started (beside the publishing `rename`/`link`). */
  unnamed?: Promise<void>
  /** Set by `removeStaging`, which runs once. */
  removed?: boolean
}

let live = 0

/** How many staging directories this process holds right now (the journal is kept while any are). */
export function liveStagingCount(): number {
  return live
}

function prefixOf(dir: string, kind: 's' | 'p' | 'f'): string {
  const me = selfIdentity()
  return join(dir, `${STAGING_PREFIX}${kind}.${me.boot}.${me.ns}.${me.pid}.${me.start}.`)
}

/**
 * Makes a private (0700) staging directory inside `dir` with its liveness socket `live`: a hard
 * link to this process's shared socket where that is on the same filesystem, else one bound here.
 * `first` (the open of the staged file) is started at once so it overlaps the link or the bind.
 * Nothing is written into what `first` creates before this returns, so a non-empty member still
 * means the socket was listening.
 */
export async function makeStaging<T = undefined>(dir: string, first?: (made: string) => Promise<T>): Promise<Staging & { first: T }> {
  const fits = Buffer.byteLength(prefixOf(dir, 's')) + '000000/live'.length <= MAX_SOCKET_PATH
  const made = await mkdtemp(prefixOf(dir, fits ? 's' : 'p'))
  live++
  const started = first?.(made)
  let staging: Staging = { dir: made, live: fits ? await linkShared(join(made, 'live')) : undefined }
  if (fits && staging.live === undefined) staging.live = listenLiveness(join(made, 'live'))
  if (fits && staging.live === undefined) {
    // The name promised a socket: a `s` directory must not outlive its grace without one.
    const renamed = `${prefixOf(dir, 'p')}${made.slice(-6)}`
    await Promise.allSettled([started])
    staging = await rename(made, renamed).then(() => ({ dir: renamed, live: undefined }), () => staging)
  }
  try {
    return { ...staging, first: (await started) as T }
  } catch (error) {
    await removeStaging(staging)
    throw error
  }
}

let linksRefused = false

/** `path` as a hard link to the shared socket; `undefined` across filesystems or without one. */
async function linkShared(path: string): Promise<Liveness | undefined> {
  const socket = sharedLiveness()
  if (socket === undefined || linksRefused) return undefined
  try {
    await link(socket, path)
    // The shared socket listens as long as this process lives: nothing to close per staging.
    return { path, close: () => {} }
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'EPERM' || code === 'EOPNOTSUPP' || code === 'ENOTSUP' || code === 'ENOSYS') linksRefused = true
    return undefined
  }
}

/** A replacement staged in a file beside its target, with the socket that shows its writer alive. */
export interface StagedFile {
  file: string
  live: Liveness | undefined
  /**
   * The socket a publication lock links to while `live` is not linked yet: this process's shared
   * one, on the same filesystem as the staged file.
   */
  lockSocket?: string
  /** The timer that links `live` for a write still staged after `SOCKET_AFTER_MS`, and that link. */
  later?: NodeJS.Timeout
  linking?: Promise<void>
  /** Set once the socket may no longer be linked (publication started), and once given back. */
  unnamed?: Promise<void>
  released?: boolean
}

/**
 * How long a staged replacement may go without its socket beside it. A sweep leaves a staged file
 * without a socket alone for `GRACE_MS` after its last change, so a write that publishes sooner
 * (nearly every one) never links it: two calls fewer per replacement.
 */
export const SOCKET_AFTER_MS = 1_000

const STAGED_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
// Random bytes drawn from the system in batches: one draw per 128 names instead of one per name.
let pool = Buffer.alloc(0)
let drawn = 0

/** Six random letters or digits (62⁶ names), unpredictable as `mkdtemp`'s. */
function randomName(): string {
  let name = ''
  // 248 = 4 × 62: bytes above it would favour the first letters, and are drawn again.
  while (name.length < 6) {
    if (drawn === pool.length) {
      pool = randomBytes(6 * 128)
      drawn = 0
    }
    const byte = pool[drawn++]!
    if (byte < 248) name += ALPHABET[byte % 62]
  }
  return name
}

let sharedDevice: { path: string; dev: number } | undefined

/**
 * Whether the shared socket can be hard-linked into `dir` (the same filesystem), asked on the loop
 * thread only where lookups are inline; elsewhere `false`, and the socket is linked at once.
 */
function linkableLater(dir: string): string | undefined {
  const socket = sharedLiveness()
  if (socket === undefined || linksRefused || !callsInline()) return undefined
  try {
    if (sharedDevice?.path !== socket) sharedDevice = { path: socket, dev: statSync(socket).dev }
    return statSync(dir).dev === sharedDevice.dev ? socket : undefined
  } catch {
    return undefined
  }
}

/**
 * Creates the staged file of a replacement inside `dir` (exclusively, never through a link, with
 * `mode`). Where this process's shared socket is on the same filesystem, the socket is linked
 * beside the file only if the write is still staged after `SOCKET_AFTER_MS`, and a publication
 * lock links to the shared socket itself. Elsewhere the socket is linked (or bound) beside it
 * meanwhile, and nothing is written into the file before, so bytes in it mean the socket was
 * listening.
 */
export async function makeStagedFile(dir: string, mode: number): Promise<StagedFile & { handle: FileHandle }> {
  const file = `${prefixOf(dir, 'f')}${randomName()}`
  live++
  const socket = `${file}.live`
  const fits = Buffer.byteLength(socket) <= MAX_SOCKET_PATH
  const shared = fits ? linkableLater(dir) : undefined
  const [opened, linked] = await Promise.allSettled([open(file, STAGED_FILE_FLAGS, mode), fits && shared === undefined ? linkShared(socket) : undefined])
  const staged: StagedFile = { file, live: linked.status === 'fulfilled' ? linked.value : undefined }
  if (shared !== undefined) {
    staged.lockSocket = shared
    staged.later = setTimeout(() => {
      staged.later = undefined
      // The shared socket listens already: linked at any moment, it is proof as soon as it is there.
      staged.linking = link(shared, socket).then(() => void (staged.live = { path: socket, close: () => {} }), () => {})
    }, SOCKET_AFTER_MS).unref()
  } else if (fits && staged.live === undefined) {
    staged.live = listenLiveness(socket)
  }
  if (opened.status === 'rejected') {
    await releaseStagedFile(staged)
    throw opened.reason
  }
  // The same object: the timer sets `live` on it.
  return Object.assign(staged, { handle: opened.value })
}

/**
 * Drops the socket beside a staged file, once: no later link is made, one in flight is waited for,
 * and a linked name is unlinked. Started beside the publishing `rename`.
 */
export function unnameStagedFile(staged: StagedFile): Promise<void> {
  return (staged.unnamed ??= (async () => {
    clearTimeout(staged.later)
    staged.later = undefined
    await staged.linking
    if (staged.live !== undefined) await unlink(staged.live.path).catch(() => {})
  })())
}

/**
 * Gives back what a staged file held once it is published or removed: its socket's name, then,
 * once `socketUntil` (a publication lock taken on it) has settled, the socket itself. The staged
 * name is the caller's (renamed away, or unlinked first).
 */
export async function releaseStagedFile(staged: StagedFile, socketUntil?: Promise<unknown>): Promise<void> {
  if (staged.released) return
  staged.released = true
  await unnameStagedFile(staged)
  const { live: socket } = staged
  if (socket !== undefined) void Promise.resolve(socketUntil).catch(() => {}).then(() => socket.close())
  live--
}

/**
 * Removes a staging directory this process made, its socket first (closing a bound one unlinks
 * `live`). A socket that may still serve as a publication lock is closed only once `socketUntil`
 * (the lock's release) has settled; the directory goes meanwhile, its socket's name already gone.
 */
export async function removeStaging(staging: Staging, socketUntil?: Promise<unknown>): Promise<void> {
  if (staging.removed) return
  staging.removed = true
  const closed = socketUntil === undefined ? staging.live?.close() : socketUntil.catch(() => {}).then(() => staging.live?.close())
  await rmdir(staging.dir).catch(() => rm(staging.dir, { recursive: true, force: true })).catch(() => {})
  await closed
  live--
}

/**
 * Whether the staging entry `name` in `dir` is provably ours and provably abandoned: the exact
 * name, a private directory of our user holding nothing but staging members, and a writer proven
 * dead by its pid (same boot and PID namespace) or by its socket refusing connections.
 */
async function isAbandoned(dir: string, name: string): Promise<boolean> {
  const owner = parseStagingName(name)
  if (owner === undefined) return false
  const path = join(dir, name)
  const stats = await lstat(path)
  if (!stats.isDirectory() || (EUID >= 0 && stats.uid !== EUID) || (stats.mode & 0o077) !== 0) return false
  const members = await readdir(path)
  if (!members.every((member) => MEMBERS.has(member))) return false
  const byPid = await pidVerdict(owner)
  if (byPid !== 'unknown') return byPid === 'dead'
  if (owner.kind === 'p') return false
  if (!members.includes('live')) {
    // Before its `bind` or after its socket closed: only a directory left alone that long is residue.
    return Date.now() - stats.ctimeMs >= GRACE_MS
  }
  const socket = join(path, 'live')
  if (!(await lstat(socket)).isSocket() || (await probeLiveness(socket)) !== 'dead') return false
  // Bytes in `content`, an `owner` or a `tomb` are put in after `listen`; a refusing socket beside
  // nothing else (or an empty `content`) may be between its bind and its listen.
  const content = members.includes('content') ? await lstat(join(path, 'content')) : undefined
  if ((content !== undefined && content.size > 0) || members.includes('owner') || members.includes('tomb')) return true
  return Date.now() - (await lstat(socket)).ctimeMs >= GRACE_MS
}

/** Unlinks `path` if it is a socket of our user (a staged file's, left by its dead writer). */
async function removeSocket(path: string): Promise<void> {
  const stats = await lstat(path).catch(() => undefined)
  if (stats?.isSocket() && (EUID < 0 || stats.uid === EUID)) await unlink(path).catch(() => {})
}

/**
 * Whether the staged file (or lone socket) `name` in `dir` is provably ours and provably abandoned:
 * of our user and of the shape we make, and its writer proven dead by its pid (same boot and PID
 * namespace) or by its socket refusing connections. A file whose socket refuses, but which holds
 * no byte yet, may be between the socket's `bind` and `listen`; one without a socket may be before
 * it: both are left alone for `GRACE_MS`.
 */
async function isAbandonedFile(dir: string, name: string, owner: WriterIdentity & { socket: boolean }): Promise<boolean> {
  const stats = await lstat(join(dir, name))
  if (EUID >= 0 && stats.uid !== EUID) return false
  if (owner.socket ? !stats.isSocket() : !stats.isFile()) return false
  const byPid = await pidVerdict(owner)
  if (byPid !== 'unknown') return byPid === 'dead'
  const socketPath = owner.socket ? join(dir, name) : join(dir, `${name}.live`)
  const socket = owner.socket ? stats : await lstat(socketPath).catch(() => undefined)
  if (socket === undefined) return Date.now() - stats.ctimeMs >= GRACE_MS
  if (!socket.isSocket() || (await probeLiveness(socketPath)) !== 'dead') return false
  return owner.socket || stats.size > 0 || Date.now() - socket.ctimeMs >= GRACE_MS
}

/**
 * Runs `work` with a short path naming `dir` (`/proc/self/fd/<n>` of a descriptor held meanwhile),
 * so socket paths below it fit `sun_path` however deep `dir` is.
 */
export async function withDirectory<T>(dir: string, work: (path: string) => Promise<T>): Promise<T> {
  if (!CAN_ANCHOR || dir.startsWith('/proc/self/fd/')) return work(dir)
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    return await work(`/proc/self/fd/${handle.fd}`)
  } finally {
    await handle.close().catch(() => {})
  }
}

/** Removes the abandoned staging directories in `dir`; returns how many it removed. */
export async function reclaimStaging(dir: string, listed?: string[]): Promise<number> {
  try {
    return await withDirectory(dir, async (path) => {
      const names = listed ?? await readdir(path)
      let removed = 0
      for (const name of names) {
        try {
          const file = parseStagedFileName(name)
          if (file !== undefined) {
            // A staged file is judged with its socket; a socket alone (its file renamed away when
            // the writer died) by itself.
            if (file.socket && names.includes(name.slice(0, -'.live'.length))) continue
            if (!(await isAbandonedFile(path, name, file))) continue
            await unlink(join(path, name))
            if (!file.socket) await removeSocket(join(path, `${name}.live`))
            removed++
            continue
          }
          if (parseStagingName(name) === undefined) continue
          if (!(await isAbandoned(path, name))) continue
          await rm(join(path, name), { recursive: true, force: true })
          removed++
        } catch {}
      }
      return removed
    })
  } catch {
    return 0
  }
}
