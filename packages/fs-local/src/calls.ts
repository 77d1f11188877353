import * as fs from 'node:fs'
import * as fsp from 'node:fs/promises'

/**
 * On a local filesystem, calls run on the loop thread: lookups, opens, renames, links, and the first
 * `INLINE_IO_BYTES` a `Descriptor` reads or writes. The kernel answers them in 2–20 µs; a pool round
 * trip costs 40–100 µs, and a small write made ten (`2026-12-02-inline-io.md`). In the pool always:
 * `fsync`, the rest of a longer transfer, paths over `INLINE_PATH_BYTES`. `inlineCalls: never`: all.
 */
export type InlineCalls = 'auto' | 'never'

/** `statfs` magic numbers of Linux filesystems whose metadata lives on this machine. */
const LOCAL_FILESYSTEMS = new Set([
  0xef53, 0x58465342, 0x9123683e, 0xf2f52010, 0x2fc12fc1, 0xca451a4e, // ext2/3/4, xfs, btrfs, f2fs, zfs, bcachefs
  0x01021994, 0x858458f6, 0x794c7630, // tmpfs, ramfs, overlayfs (containers; its layers are local)
])

/** Longer paths (UTF-16 units) are looked up in the pool: a tree thousands of levels deep must not hold the loop thread. */
export const INLINE_PATH_BYTES = 512

export function isLocalFilesystem(dir: string): boolean {
  try {
    return process.platform === 'linux' && LOCAL_FILESYSTEMS.has(Number(fs.statfsSync(dir).type))
  } catch {
    return false
  }
}

function either<F extends (...args: any[]) => Promise<unknown>>(inline: boolean, threaded: F, direct: (...args: Parameters<F>) => unknown): F {
  if (!inline) return threaded
  return (async (...args: Parameters<F>) => (args.some((arg) => typeof arg === 'string' && arg.length > INLINE_PATH_BYTES) ? threaded(...args) : direct(...args))) as F
}

/** The bytes one descriptor's reads and writes move on the loop thread, in all: copies to or from the page cache. */
export const INLINE_IO_BYTES = 64 * 1024

type Done<T> = (error: NodeJS.ErrnoException | null, value?: T) => void

/**
 * A bare descriptor, inline (see above) or in the pool; its reads and writes stop running inline once
 * they moved `INLINE_IO_BYTES`, so a long transfer yields to the event loop between its chunks.
 * Closed, every call fails `EBADF` (the number is reused); a close waits for the calls in flight.
 */
export class Descriptor {
  #closed: Promise<void> | undefined
  #inFlight = 0
  #drained: (() => void) | undefined
  #inlineLeft = INLINE_IO_BYTES

  constructor(readonly fd: number, readonly inline: boolean) {}

  #call<T>(direct: (() => T) | undefined, pooled: (done: Done<T>) => void): Promise<T> {
    if (this.#closed !== undefined) return Promise.reject(Object.assign(new Error('EBADF: bad file descriptor, the file is closed'), { code: 'EBADF' }))
    if (this.inline && direct !== undefined) return new Promise<T>((resolve) => resolve(direct()))
    this.#inFlight++
    return new Promise<T>((resolve, reject) => pooled((error, value) => {
      if (--this.#inFlight === 0) this.#drained?.()
      return error ? reject(error) : resolve(value as T)
    }))
  }

  #transfer(length: number): boolean {
    return length <= this.#inlineLeft && (this.#inlineLeft -= length) >= 0
  }

  read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number }> {
    const direct = this.#transfer(length) ? () => ({ bytesRead: fs.readSync(this.fd, buffer, offset, length, position) }) : undefined
    return this.#call(direct, (done) => fs.read(this.fd, buffer, offset, length, position, (error, bytesRead) => done(error, { bytesRead })))
  }

  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }> {
    const direct = this.#transfer(length) ? () => ({ bytesWritten: fs.writeSync(this.fd, buffer, offset, length) }) : undefined
    return this.#call(direct, (done) => fs.write(this.fd, buffer, offset, length, null, (error, bytesWritten) => done(error, { bytesWritten })))
  }

  stat(): Promise<fs.BigIntStats> {
    return this.#call(() => fs.fstatSync(this.fd, { bigint: true }), (done) => fs.fstat(this.fd, { bigint: true }, done))
  }

  chmod(mode: number): Promise<void> {
    return this.#call(() => fs.fchmodSync(this.fd, mode), (done) => fs.fchmod(this.fd, mode, done))
  }

  chown(uid: number, gid: number): Promise<void> {
    return this.#call(() => fs.fchownSync(this.fd, uid, gid), (done) => fs.fchown(this.fd, uid, gid, done))
  }

  /** Always in the pool: a flush to the disk takes as long as the disk does. */
  sync(): Promise<void> {
    return this.#call(undefined, (done) => fs.fsync(this.fd, done))
  }

  /** Inline only while the file still has a name: the last close of an unlinked (replaced) file frees it, which takes the disk's time. */
  close(): Promise<void> {
    if (this.#closed !== undefined) return this.#closed
    const closeNow = () => new Promise<void>((resolve, reject) =>
      (this.inline && fs.fstatSync(this.fd).nlink > 0 ? resolve(fs.closeSync(this.fd)) : fs.close(this.fd, (error) => (error ? reject(error) : resolve()))))
    return (this.#closed = this.#inFlight === 0 ? closeNow() : new Promise<void>((resolve) => (this.#drained = resolve)).then(closeNow))
  }
}

/** The calls, made inline or in the thread pool (see above); `LocalProcess.calls` says which. */
export class Calls {
  readonly lstat: typeof fsp.lstat
  readonly stat: typeof fsp.stat
  readonly realpath: typeof fsp.realpath
  readonly access: typeof fsp.access
  readonly readlink: typeof fsp.readlink
  readonly rename: typeof fsp.rename
  readonly link: typeof fsp.link
  readonly unlink: typeof fsp.unlink

  constructor(readonly inline: boolean) {
    this.lstat = either(inline, fsp.lstat, (path, options) => fs.lstatSync(path, options))
    this.stat = either(inline, fsp.stat, (path, options) => fs.statSync(path, options))
    this.realpath = either(inline, fsp.realpath, (path, options) => fs.realpathSync.native(path, options))
    this.access = either(inline, fsp.access, (path, mode) => fs.accessSync(path, mode))
    this.readlink = either(inline, fsp.readlink, (path, options) => fs.readlinkSync(path, options as fs.EncodingOption))
    this.rename = either(inline, fsp.rename, (from, to) => fs.renameSync(from, to))
    this.link = either(inline, fsp.link, (from, to) => fs.linkSync(from, to))
    this.unlink = either(inline, fsp.unlink, (path) => fs.unlinkSync(path))
  }

  open(path: string, flags: number, mode?: number): Promise<Descriptor> {
    if (this.inline && path.length <= INLINE_PATH_BYTES) return new Promise((resolve) => resolve(new Descriptor(fs.openSync(path, flags, mode), true)))
    return new Promise((resolve, reject) => fs.open(path, flags, mode, (error, fd) => (error ? reject(error) : resolve(new Descriptor(fd, this.inline)))))
  }
}

export const INLINE_CALLS = new Calls(true)
export const POOLED_CALLS = new Calls(false)
