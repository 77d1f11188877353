import * as fs from 'node:fs'
import * as fsp from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'

/**
 * How fs-local makes the lookups whose cost does not depend on the input: `lstat`, `stat`,
 * `fstat`, `realpath`, `readlink`, `access` (and listing extended attributes, in `protect.ts`). Through `fs.promises` each is a round trip through libuv's thread
 * pool: on this kind of machine 50–100 µs of handing over and waking up for a call the kernel
 * answers from its caches in 2–10 µs, and a small write makes several of them in sequence.
 *
 * So on a local filesystem they run synchronously on the loop thread, with the same errors. Calls
 * that change directory entries (`link`, `rename`, `mkdir`, `unlink`…) stay in the thread pool:
 * they need a journal handle, and on ext4 one waits behind a running commit (measured: a `rename`
 * or `rmdir` issued beside an fsync held the loop 0.4 ms). So does everything that reads or writes
 * file data, fsyncs, lists a directory or opens a file: its cost grows with the input, or it can
 * block (a FIFO, a device). One exception, in `open.ts`: a regular file of at most 64 KiB, seen by
 * a lookup a moment before, is opened non-blocking inline, and `inspect` reads it there in one
 * positioned read (`readSmallInline`); a mutation's reads of it stay in the thread pool. On any
 * other filesystem (NFS, SMB, FUSE, 9p, an unknown type) a lookup
 * may take as long as the server likes, so every call stays in the thread pool; so does every call
 * once any provider of the `LocalProcess` asked for that (`inlineCalls: 'never'`) or stands on such a
 * filesystem. A path longer than `INLINE_PATH_BYTES` is always looked up in the thread pool.
 */
export type InlineCalls = 'auto' | 'never'

/** `statfs` magic numbers of Linux filesystems whose metadata lives on this machine. */
const LOCAL_FILESYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs (containers; its layers are local)
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
])

/**
 * A path longer than this (UTF-16 units) is looked up in the thread pool even where lookups run inline: the
 * kernel resolves a path one component at a time, so a lookup in a tree thousands of levels deep
 * could hold the loop thread for as long as it likes (issue 25, item 6).
 */
export const INLINE_PATH_BYTES = 512

/** Whether `dir` is on a filesystem of `LOCAL_FILESYSTEMS` (Linux only; unknown elsewhere). */
export function isLocalFilesystem(dir: string): boolean {
  if (process.platform !== 'linux') return false
  try {
    return LOCAL_FILESYSTEMS.has(Number(fs.statfsSync(dir).type))
  } catch {
    return false
  }
}

function settled<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call())
  } catch (error) {
    return Promise.reject(error)
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function either<F extends (...args: any[]) => Promise<unknown>>(inline: boolean, threaded: F, direct: (...args: Parameters<F>) => unknown): F {
  if (!inline) return threaded
  return ((...args: Parameters<F>) => (typeof args[0] === 'string' && args[0].length > INLINE_PATH_BYTES ? threaded(...args) : settled(() => direct(...args)))) as F
}

/** The lookups, made inline or in the thread pool (see above); `LocalProcess.calls` says which. */
export class Calls {
  readonly lstat: typeof fsp.lstat
  readonly stat: typeof fsp.stat
  // `fs.promises.realpath` is realpath(3); `realpathSync.native` is the same call.
  readonly realpath: typeof fsp.realpath
  readonly access: typeof fsp.access
  readonly readlink: typeof fsp.readlink

  constructor(readonly inline: boolean) {
    this.lstat = either(inline, fsp.lstat, (path, options) => fs.lstatSync(path, options))
    this.stat = either(inline, fsp.stat, (path, options) => fs.statSync(path, options))
    this.realpath = either(inline, fsp.realpath, (path, options) => fs.realpathSync.native(path, options))
    this.access = either(inline, fsp.access, (path, mode) => fs.accessSync(path, mode))
    this.readlink = either(inline, fsp.readlink, (path, options) => fs.readlinkSync(path, options as fs.EncodingOption))
  }

  /** `handle.stat()`, asked of the descriptor the handle holds. */
  fstat(handle: FileHandle, options: { bigint: true }): Promise<fs.BigIntStats>
  fstat(handle: FileHandle): Promise<fs.Stats>
  fstat(handle: FileHandle, options?: { bigint: true }): Promise<fs.Stats | fs.BigIntStats> {
    if (!this.inline) return options === undefined ? handle.stat() : handle.stat(options)
    return settled(() => (options === undefined ? fs.fstatSync(handle.fd) : fs.fstatSync(handle.fd, options)))
  }
}

export const INLINE_CALLS = new Calls(true)
export const POOLED_CALLS = new Calls(false)
