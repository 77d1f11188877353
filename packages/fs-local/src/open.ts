import { type FsError, fsError } from '@deepseek-ai/dsh-fs'
import { describeEntry } from '@deepseek-ai/dsh-fs/kit'
import * as fs from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import type { Calls } from './calls'
import { closeOnFailure, ifMissing } from './errors'
import { infoOf } from './probe'

/** A file opened for reading: a `FileHandle`, or for a small file opened on the loop thread a bare descriptor with the same calls. */
export interface ReadHandle {
  readonly fd: number
  read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number }>
  stat(options: { bigint: true }): Promise<fs.BigIntStats>
  close(): Promise<void>
  /** A bare descriptor's close on the loop thread, for a file only read (its close frees nothing). */
  closeInline?(): void
}

export interface OpenedFile {
  handle: ReadHandle
  stats: fs.BigIntStats
  /** Where the bytes really are (the kernel's name for the descriptor). */
  real: string
}

// O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer (no effect on a
// regular file's reads). O_NOCTTY: a terminal never becomes our controlling tty.
export const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY

/** Refuses what is not a regular file, naming what it is in the contract's words. */
function notRegular(path: string, stats: fs.BigIntStats): FsError {
  return fsError('FS_NOT_REGULAR_FILE', { path, entry: describeEntry(infoOf(stats)) })
}

export interface OpenHints {
  /** A `stat`/`lstat` of `path` taken just before, not taken again. */
  checked?: fs.BigIntStats
  /** Where the file is, when `path` is a name in an anchored directory (opened `O_NOFOLLOW`, so it leads nowhere else). */
  real?: string
  /** Whether a small file may be opened on the loop thread (reads and `inspect`; a write gained nothing from it). */
  inline?: boolean
}

/** Opens a regular file for reading, never blocking on a special file (refused by the `stat` before, or the descriptor's `fstat`). */
export async function openRegular(calls: Calls, path: string, display: string, hints: OpenHints = {}): Promise<OpenedFile> {
  const before = hints.checked ?? await calls.stat(path, { bigint: true })
  if (!before.isFile()) throw notRegular(display, before)
  const flags = hints.real === undefined ? READ_FLAGS : READ_FLAGS | fs.constants.O_NOFOLLOW
  // A small file where lookups are inline is opened on the loop thread: an open changes no directory entry.
  const inline = hints.inline === true && before.size <= INLINE_OPEN_BYTES && calls.inline
  const handle = inline ? descriptorHandle(fs.openSync(path, flags)) : await open(path, flags)
  return closeOnFailure(() => handle.close(), async () => {
    const [stats, real] = await Promise.all([
      inline ? fs.fstatSync(handle.fd, { bigint: true }) : calls.fstat(handle as FileHandle, { bigint: true }),
      hints.real ?? descriptorPath(calls, handle, path),
    ])
    if (!stats.isFile()) throw notRegular(display, stats)
    return { handle, stats, real }
  })
}

/** The largest file opened on the loop thread (2.6× faster `inspect` of 4 KiB, same run). */
export const INLINE_OPEN_BYTES = 64n * 1024n

/** A bare descriptor behind `ReadHandle`, its calls in the pool; closed, every call fails `EBADF` (the number is reused). */
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

/** The real path of an open descriptor from `/proc/self/fd` (what we hold, whatever was swapped since); elsewhere the realpath of its name. */
export async function descriptorPath(calls: Calls, descriptor: { fd: number }, path: string): Promise<string> {
  const real = await calls.readlink(`/proc/self/fd/${descriptor.fd}`).catch(ifMissing)
  return real?.startsWith('/') && !real.endsWith(' (deleted)') ? real : calls.realpath(path)
}
