import { type FsError, fsError } from '@deepseek-ai/dsh-fs'
import * as fs from 'node:fs'
import { constants, type BigIntStats } from 'node:fs'
import { open } from 'node:fs/promises'
import type { Calls } from './calls'
import { errnoCode } from './errors'

/**
 * The read side of a file opened for reading: a `FileHandle`, or for a small file opened on the
 * loop thread (`openRegular`) a bare descriptor with the same four calls.
 */
export interface ReadHandle {
  readonly fd: number
  read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number }>
  stat(options: { bigint: true }): Promise<BigIntStats>
  close(): Promise<void>
  /**
   * A bare descriptor's close on the loop thread, for a file only read and not replaced meanwhile
   * (its close frees nothing); like `close`, it makes every later call fail with `EBADF`.
   */
  closeInline?(): void
}

export interface OpenedFile {
  handle: ReadHandle
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
  /**
   * Whether a small file may be opened on the loop thread (where lookups run inline): `inspect`
   * reads it there at once; a write reads it in the thread pool beside its staging, where the
   * inline open bought it nothing measurable.
   */
  inline?: boolean
}

/**
 * Opens a regular file for reading without ever blocking on a special file. A FIFO, socket or device
 * is refused from a `stat` before any open; if one is swapped in between that check and the open,
 * the non-blocking open returns immediately and the descriptor's own `fstat` refuses it.
 */
export async function openRegular(calls: Calls, path: string, display: string, hints: OpenHints = {}): Promise<OpenedFile> {
  const before = hints.checked ?? await calls.stat(path, { bigint: true })
  if (!before.isFile()) throw notRegular(display, describe(before))
  const flags = hints.real === undefined ? READ_FLAGS : READ_FLAGS | constants.O_NOFOLLOW
  if (hints.inline === true && before.size <= INLINE_OPEN_BYTES && calls.inline) return openInline(calls, path, display, flags, hints)
  const handle = await open(path, flags)
  try {
    // Independent questions about one descriptor: asked together.
    const [stats, real] = await Promise.all([
      calls.fstat(handle, { bigint: true }),
      hints.real ?? descriptorPath(calls, handle, path),
    ])
    if (!stats.isFile()) throw notRegular(display, describe(stats))
    return { handle, stats, real }
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
}

/**
 * Files seen at most this large are opened on the loop thread for `inspect` when lookups are inline
 * (`calls.ts`): opening an existing file non-blocking changes no directory entry, where the same
 * open through the thread pool is a 50–100 µs round trip in front of the read that follows.
 */
export const INLINE_OPEN_BYTES = 64n * 1024n

async function openInline(calls: Calls, path: string, display: string, flags: number, hints: OpenHints): Promise<OpenedFile> {
  const fd = fs.openSync(path, flags)
  const handle = descriptorHandle(fd)
  try {
    const stats = fs.fstatSync(fd, { bigint: true })
    if (!stats.isFile()) throw notRegular(display, describe(stats))
    return { handle, stats, real: hints.real ?? await descriptorPath(calls, handle, path) }
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
}

/**
 * A bare descriptor behind the `ReadHandle` calls, each made in the thread pool like a
 * `FileHandle`'s (the close can be the last reference to an inode a `rename` just replaced, and
 * freeing its blocks is journal work). The close waits for reads in flight, and after it every call
 * fails with `EBADF`: the number, which the kernel hands out again, never reaches another file.
 */
function descriptorHandle(fd: number): ReadHandle {
  let closed: Promise<void> | undefined
  let inFlight = 0
  let drained: (() => void) | undefined
  const call = <T>(work: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> => {
    if (closed !== undefined) return Promise.reject(Object.assign(new Error('EBADF: bad file descriptor, the file is closed'), { code: 'EBADF' }))
    inFlight++
    return new Promise<T>((resolve, reject) => work((error, value) => {
      if (--inFlight === 0) drained?.()
      if (error) reject(error)
      else resolve(value as T)
    }))
  }
  const closeNow = () => new Promise<void>((resolve, reject) => fs.close(fd, (error) => (error ? reject(error) : resolve())))
  const close = () => (closed ??= inFlight === 0 ? closeNow() : new Promise<void>((resolve) => (drained = resolve)).then(closeNow))
  return {
    fd,
    read: (buffer, offset, length, position) => call((done) => fs.read(fd, buffer, offset, length, position, (error, bytesRead) => done(error, { bytesRead }))),
    stat: (options) => call((done) => fs.fstat(fd, options, done)),
    close,
    closeInline: () => {
      if (closed !== undefined || inFlight > 0) return void close().catch(() => {})
      closed = Promise.resolve()
      fs.closeSync(fd)
    },
  }
}

/**
 * The real path of an open descriptor. On Linux `/proc/self/fd` names the inode we actually hold,
 * so a directory swapped for a symlink after any earlier check cannot hide where we are; elsewhere
 * the realpath of the opened name is the best available answer.
 */
export async function descriptorPath(calls: Calls, descriptor: { fd: number }, path: string): Promise<string> {
  try {
    const real = await calls.readlink(`/proc/self/fd/${descriptor.fd}`)
    if (real.startsWith('/') && !real.endsWith(' (deleted)')) return real
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
  return calls.realpath(path)
}
