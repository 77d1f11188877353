import { FsError } from '@deepseek-ai/dsh-fs'
import { constants, type BigIntStats } from 'node:fs'
import { type FileHandle, link, lstat, open, rename, rm, rmdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { errnoCode } from './errors'
import { applyPrevious, type Previous } from './protect'
import { makeStaging } from './staging'

/**
 * Bytes written and fsynced in a private staging directory beside the destination, waiting to be
 * published. The descriptor stays open so the published inode's final metadata (its ctime moves on
 * link, rename and unlink) can be read from the inode we wrote, not from whatever holds the name.
 */
export interface Staged {
  dir: string
  file: string
  handle: FileHandle
  /** Set once published and settled: the staged name and its directory are gone. */
  settled?: boolean
}

/**
 * Writes `bytes` to an exclusively created temp file in a fresh staging directory inside `parent`
 * (which exists: the caller anchored it, creating what was missing).
 * A new file is created `0o666` and the kernel applies the umask, as any editor would; a replacement
 * takes what `previous` says the old file was (`applyPrevious`): mode, owner or group, extended attributes.
 */
export async function stage(parent: string, bytes: Uint8Array, previous: Previous | undefined, display: string): Promise<Staged> {
  const dir = await makeStaging(parent)
  const file = join(dir, 'content')
  let handle: FileHandle | undefined
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666)
    // Bytes first: a write by a process without CAP_FSETID clears set-id bits and file capabilities.
    await writeAll(handle, bytes)
    if (previous !== undefined) await applyPrevious(file, handle, previous, display)
    await handle.sync()
    return { dir, file, handle }
  } catch (error) {
    await handle?.close().catch(() => {})
    if (handle !== undefined) await unlink(file).catch(() => {})
    await rmdir(dir).catch(() => rm(dir, { recursive: true, force: true })).catch(() => {})
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
    throw new FsError('FS_PERMISSION_DENIED', `${display} is a mount point (a file mounted over this path), so it cannot be replaced atomically; `
      + 'nothing was written. Change the mounted file at its source instead.', { cause: error, path: display })
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
      throw new FsError('FS_IO_ERROR', `${display}: link reported an existing entry that then vanished`, { cause: inspectError, path: display })
    }
    if (occupant.isFile()) throw new FsError('FS_NOT_OBSERVED', `${display} already exists`, { cause: error, path: display })
    throw new FsError('FS_NOT_REGULAR_FILE', `${display} is occupied by something that is not a regular file`, { cause: error, path: display })
  }
}

/**
 * After publication: drops the staging name (a `link` left it; a `rename` took it away), then
 * reads the published inode's metadata through the still-open descriptor (unlinking the staged
 * name moves ctime, so the version is taken after it) and removes the then empty staging
 * directory beside that.
 */
export async function settle(staged: Staged, linked: boolean): Promise<BigIntStats> {
  if (linked) await unlink(staged.file).catch((error) => (errnoCode(error) === 'ENOENT' ? undefined : Promise.reject(error)))
  const [stats] = await Promise.all([
    staged.handle.stat({ bigint: true }),
    rmdir(staged.dir).catch(() => {}),
  ])
  staged.settled = true
  return stats
}

/**
 * Closes the staged file and removes what is left of its staging (everything when the write was
 * not published). Best effort: after publication the write already happened.
 */
export async function discard(staged: Staged): Promise<void> {
  if (staged.settled) {
    await staged.handle.close().catch(() => {})
    return
  }
  await Promise.all([
    staged.handle.close().catch(() => {}),
    unlink(staged.file).catch(() => {}).then(() => rmdir(staged.dir)).catch(() => rm(staged.dir, { recursive: true, force: true })).catch(() => {}),
  ])
}
