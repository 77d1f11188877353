import { FsError } from '@deepseek-ai/dsh-fs'
import { constants, type BigIntStats } from 'node:fs'
import { type FileHandle, link, lstat, open, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { errnoCode } from './errors'
import { makeStaging, removeStaging, type Staging } from './staging'

/** What the replaced file was, so the replacement can keep its mode and owner. */
export interface Previous {
  mode: number
  uid: number
  gid: number
}

export function previousOf(stats: BigIntStats): Previous {
  return { mode: Number(stats.mode) & 0o7777, uid: Number(stats.uid), gid: Number(stats.gid) }
}

/**
 * Bytes written and fsynced in a private staging directory beside the destination, waiting to be
 * published. The descriptor stays open so the published inode's final metadata (its ctime moves on
 * link, rename and unlink) can be read from the inode we wrote, not from whatever holds the name.
 */
export interface Staged {
  staging: Staging
  file: string
  handle: FileHandle
  /** Set once published and settled: the staged name is gone. */
  settled?: boolean
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
const RUNNING_AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0

/**
 * Writes `bytes` to an exclusively created temp file in a fresh staging directory inside `parent`
 * (which exists: the caller anchored it, creating what was missing).
 * A new file is created `0o666` and the kernel applies the umask, as any editor would; a replacement
 * takes the previous file's mode (and its owner when we are root, since only root may give a file away).
 */
export async function stage(parent: string, bytes: Uint8Array, previous: Previous | undefined): Promise<Staged> {
  const { first: opened, ...staging } = await makeStaging(parent, (dir) => open(join(dir, 'content'), CREATE, 0o666))
  const file = join(staging.dir, 'content')
  try {
    // The bytes and the metadata are independent: written side by side, both before the fsync.
    await Promise.all([
      writeAll(opened, bytes),
      previous === undefined ? undefined : (async () => {
        if (RUNNING_AS_ROOT) await opened.chown(previous.uid, previous.gid)
        // After chown: changing the owner clears set-id bits, so the mode goes last.
        await opened.chmod(previous.mode)
      })(),
    ])
    await opened.sync()
    return { staging, file, handle: opened }
  } catch (error) {
    await opened.close().catch(() => {})
    await unlink(file).catch(() => {})
    await removeStaging(staging)
    throw error
  }
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset)
    offset += bytesWritten
  }
}

/** Atomically replaces (or creates) `destination` with the staged file; the caller fsyncs the directory. */
export async function publishReplace(staged: Staged, destination: string): Promise<void> {
  await rename(staged.file, destination)
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
      throw new FsError('FS_IO_ERROR', `${display}: link reported an existing entry that then vanished`, { cause: inspectError, path: display })
    }
    if (occupant.isFile()) throw new FsError('FS_NOT_OBSERVED', `${display} already exists`, { cause: error, path: display })
    throw new FsError('FS_NOT_REGULAR_FILE', `${display} is occupied by something that is not a regular file`, { cause: error, path: display })
  }
}

/**
 * After publication: drops the staging name (a `link` left it; a `rename` took it away), then
 * reads the published inode's metadata through the still-open descriptor (unlinking the staged
 * name moves ctime, so the version is taken after it) and removes the staging directory beside
 * that. Its socket may be the publication lock: it is closed only once `released` (the lock's
 * release) has settled.
 */
export async function settle(staged: Staged, linked: boolean, released?: Promise<unknown>): Promise<BigIntStats> {
  // The socket's name goes now, in the thread pool; the socket itself listens until it is closed.
  const live = staged.staging.live
  const unnamed = live === undefined ? undefined : unlink(live.path).catch(() => {})
  if (linked) await unlink(staged.file).catch((error) => (errnoCode(error) === 'ENOENT' ? undefined : Promise.reject(error)))
  const [stats] = await Promise.all([
    staged.handle.stat({ bigint: true }),
    Promise.all([Promise.resolve(released).catch(() => {}), unnamed]).then(() => removeStaging(staged.staging)),
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
  await Promise.all([
    staged.handle.close().catch(() => {}),
    staged.settled ? undefined : unlink(staged.file).catch(() => {}).then(() => removeStaging(staged.staging)),
  ])
}
