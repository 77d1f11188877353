import { fsError } from '../../fs/src/index'
import { UTF8_BOM } from '../../fs/src/kit'
import { constants, type BigIntStats } from 'node:fs'
import { type FileHandle, open, link, rename, unlink } from 'node:fs/promises'
import { fstat, lstat } from './calls'
import { join } from 'node:path'
import { errnoCode } from './errors'
import { applyPrevious, type Previous } from './protect'
import { makeStagedFile, makeStaging, releaseStagedFile, removeStaging, type StagedFile, type Staging, unnameStagedFile } from './staging'

/**
 * Bytes written beside the destination, waiting to be published (the caller fsyncs them first,
 * while it takes what publication needs): in a private staging directory (a new file), or in a
 * staged file of its own (a replacement, see `staging.ts`). The descriptor stays open so the
 * published inode's final metadata (its ctime moves on link, rename and unlink) can be read from
 * the inode we wrote, not from whatever holds the name.
 */
export interface Staged {
  staging: Staging | StagedFile
  file: string
  handle: FileHandle
  /** Set once published and settled: the staged name is gone. */
  settled?: boolean
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/** Content given as text: encoded while it is written, so a large file is never held twice in memory. */
export interface StagedText {
  text: string
  bom: boolean
}

/** What a staged file is made of: its content and, for a replacement, what the old file had. */
export interface StageInputs {
  content: Uint8Array | StagedText
  previous: Previous | undefined
}

/**
 * Writes the content to an exclusively created temp file beside the destination inside `parent`
 * (which exists: the caller anchored it, creating what was missing). The staging is made while
 * `inputs` are still being worked out (the old file read, its metadata checked); if they fail, it
 * is removed and their error is the answer.
 * A new file is created `0o666` in a private staging directory and the kernel applies the umask, as
 * any editor would. A replacement (`replacing`: the mode of the file it replaces) is staged in a
 * file of its own, readable by its owner only until it takes what `previous` says the old file
 * was (`applyPrevious`): mode, owner or group, extended attributes.
 */
export async function stage(parent: string, inputs: Promise<StageInputs>, display: string, replacing?: number): Promise<Staged> {
  const making = replacing === undefined
    ? makeStaging(parent, (dir) => open(join(dir, 'content'), CREATE, 0o666)).then(({ first, ...staging }) => ({ staging, file: join(staging.dir, 'content'), handle: first }))
    : makeStagedFile(parent, replacing & 0o700).then((staging) => ({ staging, file: staging.file, handle: staging.handle }))
  const [made, given] = await Promise.allSettled([making, inputs])
  if (made.status === 'rejected') {
    throw given.status === 'rejected' ? given.reason : made.reason
  }
  const { staging, file, handle: opened } = made.value
  try {
    if (given.status === 'rejected') throw given.reason
    const { content, previous } = given.value
    // Bytes first: a write by a process without CAP_FSETID clears set-id bits and file capabilities.
    // What the new file got at creation (owner, mode) is asked meanwhile: a write changes neither
    // (a new file has no set-id bits to clear), and what it already has need not be set again.
    // A staged file of the old file's owner and group takes a mode without set-id bits beside the write.
    const asked = previous === undefined ? undefined : fstat(opened)
    const [, created, chmodded] = await Promise.all([
      content instanceof Uint8Array ? writeAll(opened, content) : writeEncoded(opened, content),
      asked,
      asked?.then(async (got) => {
        if (got.uid !== previous!.uid || got.gid !== previous!.gid || (previous!.mode & 0o6000) !== 0 || (got.mode & 0o7777) === previous!.mode) return false
        await opened.chmod(previous!.mode)
        return true
      }),
    ])
    if (previous !== undefined) await applyPrevious(file, opened, previous, display, chmodded ? { ...created!, mode: previous.mode } : created)
    return { staging, file, handle: opened }
  } catch (error) {
    await opened.close().catch(() => {})
    await unlink(file).catch(() => {})
    await release(staging)
    throw error
  }
}

function inDirectory(staging: Staging | StagedFile): staging is Staging {
  return 'dir' in staging
}

/**
 * Removes a staging directory (once its socket's name is gone, if that was started), or gives
 * back a staged file's socket (its file is the caller's).
 */
function release(staging: Staging | StagedFile, socketUntil?: Promise<unknown>): Promise<void> {
  if (inDirectory(staging)) return Promise.resolve(staging.unnamed).then(() => removeStaging(staging, socketUntil))
  return releaseStagedFile(staging, socketUntil)
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset)
    offset += bytesWritten
  }
}

/** UTF-16 units encoded per write (at most 3 bytes each). */
const CHUNK_UNITS = 1024 * 1024
const BUFFER_BYTES = 3 * CHUNK_UNITS + UTF8_BOM.length
/** Texts this short are encoded into a buffer of their own: a pooled one would save nothing. */
const SMALL_UNITS = 16 * 1024
const encoder = new TextEncoder()

/**
 * Encode buffers kept for the next write. A fresh multi-MiB buffer costs more than the encoding into
 * it (its pages are faulted in on first touch: about 0.7 ms per MiB here, against 0.1 ms to encode
 * ASCII into a warm one), so at most `POOL_SIZE` of them (12 MiB) stay allocated between writes;
 * concurrent writes beyond that allocate their own, dropped afterwards.
 */
const POOL_SIZE = 4
const pool: Buffer[] = []

function takeBuffer(): Buffer {
  return pool.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES)
}

function giveBack(buffer: Buffer | undefined): void {
  if (buffer !== undefined && pool.length < POOL_SIZE) pool.push(buffer)
}

/**
 * Writes `text` as UTF-8 (behind a BOM if asked). A text is encoded in slices into at most two
 * pooled buffers, one encoded while the other is written: no buffer the size of the file is
 * allocated, which for tens of MiB costs more in allocation and garbage collection than the write.
 */
async function writeEncoded(handle: FileHandle, { text, bom }: StagedText): Promise<void> {
  if (text.length <= SMALL_UNITS) {
    const body = encoder.encode(text)
    await writeAll(handle, bom ? Buffer.concat([UTF8_BOM, body]) : body)
    return
  }
  const buffers: [Buffer | undefined, Buffer | undefined] = [takeBuffer(), undefined]
  let writing: Promise<void> | undefined
  try {
    // The BOM goes in front of the first slice, in the same write.
    let head = 0
    if (bom) {
      buffers[0]!.set(UTF8_BOM)
      head = UTF8_BOM.length
    }
    for (let at = 0, turn = 0; at < text.length; turn ^= 1) {
      let end = Math.min(text.length, at + CHUNK_UNITS)
      // A surrogate pair is never cut in two (each half alone would be encoded as U+FFFD).
      const last = text.charCodeAt(end - 1)
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
      const buffer = (buffers[turn] ??= takeBuffer())
      const { read, written } = encoder.encodeInto(at === 0 && end === text.length ? text : text.slice(at, end), buffer.subarray(head))
      at += read
      await writing
      writing = writeAll(handle, buffer.subarray(0, head + written))
      head = 0
    }
    await writing
  } finally {
    // A write still in flight must finish before its buffer is reused or the descriptor closed.
    await writing?.catch(() => {})
    giveBack(buffers[0])
    giveBack(buffers[1])
  }
}

/**
 * Atomically replaces (or creates) `destination` with the staged file; the caller fsyncs the directory.
 * A file that is itself a mount point (a single file bind-mounted there, as containers do with
 * `/etc/hosts`) cannot be renamed over: EBUSY. Writing it in place would give up atomicity, so it
 * is refused with a text that says why.
 */
export async function publishReplace(staged: Staged, destination: string, display: string): Promise<void> {
  try {
    await rename(staged.file, destination)
  } catch (error) {
    if (errnoCode(error) !== 'EBUSY') throw error
    throw fsError('FS_PERMISSION_DENIED', {
      path: display,
      reason: 'is a mount point (a file mounted over this path), so it cannot be replaced atomically; nothing was written. Change the mounted file at its source instead.',
      cause: error,
    })
  }
}

/**
 * Publishes the staged file only if nothing is at `destination`: `link(2)` fails with EEXIST instead
 * of replacing, so a competitor that appeared after every earlier probe keeps its bytes. What is in
 * the way decides the code: a regular file was created by someone else (`FS_NOT_OBSERVED`); anything
 * else (directory, special file, symlink, dangling or not) is `FS_NOT_REGULAR_FILE`. The caller
 * fsyncs the directory.
 */
export async function publishCreate(staged: Staged, destination: string, display: string): Promise<void> {
  try {
    await link(staged.file, destination)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    let occupant: BigIntStats
    try {
      occupant = await lstat(destination, { bigint: true })
    } catch (inspectError) {
      throw fsError('FS_IO_ERROR', { cause: inspectError, path: display, reason: 'could not be created: link reported an existing entry that then vanished' })
    }
    if (occupant.isFile()) throw fsError('FS_NOT_OBSERVED', { cause: error, path: display })
    throw fsError('FS_NOT_REGULAR_FILE', { cause: error, path: display, entry: 'occupied by something else' })
  }
}

/**
 * Drops the name of the staging's liveness socket, started beside the `rename`/`link` that
 * publishes: from then on the staging directory is emptied, and its removal need not wait for two
 * more round trips in a row. The socket itself listens on (it may be the publication lock), and a
 * staging directory that just lost an entry is left alone by any sweep for `GRACE_MS` (a staged
 * file without its socket, the same).
 */
export function unnameSocket(staged: Staged): Promise<void> {
  const { staging } = staged
  if (!inDirectory(staging)) return unnameStagedFile(staging)
  return (staging.unnamed ??= staging.live === undefined ? Promise.resolve() : unlink(staging.live.path).catch(() => {}))
}

/** The socket a publication lock of this staging links to (a writer's liveness socket), if any. */
export function lockSocketOf(staged: Staged): string | undefined {
  const { staging } = staged
  return staging.live?.path ?? (inDirectory(staging) ? undefined : staging.lockSocket)
}

/**
 * After publication: drops the staging name (a `link` left it; a `rename` took it away), then
 * reads the published inode's metadata through the still-open descriptor (unlinking the staged
 * name moves ctime, so the version is taken after it) and removes the staging directory beside
 * that. Its socket may be the publication lock: it is closed only once `released` (the lock's
 * release) has settled. `known` hears the metadata as soon as it is read.
 */
export async function settle(staged: Staged, linked: boolean, released?: Promise<unknown>, known?: (stats: BigIntStats) => void): Promise<BigIntStats> {
  unnameSocket(staged)
  if (linked) await unlink(staged.file).catch((error) => (errnoCode(error) === 'ENOENT' ? undefined : Promise.reject(error)))
  // The removal is started first: what hears the metadata may keep the loop thread a while.
  const removed = release(staged.staging, released)
  const [stats] = await Promise.all([
    fstat(staged.handle, { bigint: true }).then((stats) => {
      known?.(stats)
      return stats
    }),
    removed,
  ])
  staged.settled = true
  return stats
}

/**
 * Closes the staged file and removes what is left of its staging (everything when the write was
 * not published), after any publication lock was released. Best effort: after publication the
 * write already happened.
 */
export async function discard(staged: Staged): Promise<void> {
  // Nothing waits for the close of a published file's descriptor; unpublished staging is removed first.
  const closed = staged.handle.close().catch(() => {})
  if (!staged.settled) await Promise.all([closed, unlink(staged.file).catch(() => {}).then(() => release(staged.staging))])
}
