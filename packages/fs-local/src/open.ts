import { type FsError, fsError } from '@deepseek-ai/dsh-fs'
import { constants, type BigIntStats } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { fstat, readlink, realpath, stat } from './calls'
import { errnoCode } from './errors'

export interface OpenedFile {
  handle: FileHandle
  stats: BigIntStats
  /** Where the bytes really are (the kernel's view of the open descriptor). */
  real: string
}

// O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer, and a
// device driver may not sleep in open. O_NOCTTY: a terminal never becomes our controlling tty.
// The flag has no effect on reads of a regular file, which is all we ever read.
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY

function notRegular(path: string, what: string): FsError {
  return fsError('FS_NOT_REGULAR_FILE', { path, entry: what })
}

function describe(stats: BigIntStats): string {
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a FIFO'
  if (stats.isSocket()) return 'a socket'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  return 'a special file'
}

/** What a caller already knows when it opens a file it has just looked at. */
export interface OpenHints {
  /** A `stat`/`lstat` of `path` taken just before: when it shows a regular file, it is not taken again. */
  checked?: BigIntStats
  /**
   * Where the file really is, when `path` is looked up in an anchored directory whose real location
   * is known: the name is opened with `O_NOFOLLOW`, so it cannot lead anywhere else.
   */
  real?: string
}

/**
 * Opens a regular file for reading without ever blocking on a special file. A FIFO, socket or device
 * is refused from a `stat` before any open; if one is swapped in between that check and the open,
 * the non-blocking open returns immediately and the descriptor's own `fstat` refuses it.
 */
export async function openRegular(path: string, display: string, hints: OpenHints = {}): Promise<OpenedFile> {
  const before = hints.checked ?? await stat(path, { bigint: true })
  if (!before.isFile()) throw notRegular(display, describe(before))
  const handle = await open(path, hints.real === undefined ? READ_FLAGS : READ_FLAGS | constants.O_NOFOLLOW)
  try {
    // Independent questions about one descriptor: asked together.
    const [stats, real] = await Promise.all([
      fstat(handle, { bigint: true }),
      hints.real ?? descriptorPath(handle, path),
    ])
    if (!stats.isFile()) throw notRegular(display, describe(stats))
    return { handle, stats, real }
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
}

/**
 * The real path of an open descriptor. On Linux `/proc/self/fd` names the inode we actually hold,
 * so a directory swapped for a symlink after any earlier check cannot hide where we are; elsewhere
 * the realpath of the opened name is the best available answer.
 */
export async function descriptorPath(descriptor: { fd: number }, path: string): Promise<string> {
  try {
    const real = await readlink(`/proc/self/fd/${descriptor.fd}`)
    if (real.startsWith('/') && !real.endsWith(' (deleted)')) return real
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
  return realpath(path)
}
