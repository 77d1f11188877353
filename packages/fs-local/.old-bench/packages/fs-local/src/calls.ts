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
 * once any provider in the process asked for that (`inlineCalls: 'never'`) or stands on such a
 * filesystem.
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

let inline = 0
let threadPool = 0

/** Whether the calls of this module run on the loop thread right now. */
export function callsInline(): boolean {
  return inline > 0 && threadPool === 0
}

/**
 * Counts a provider rooted at `dir` in: inline calls only while every provider so counted stands
 * on a local filesystem and none said `never`. A provider counts for the rest of the process (they
 * are not disposed one by one): the cautious answer wins.
 */
export function enlistProvider(dir: string, mode: InlineCalls): void {
  if (mode === 'auto' && isLocalFilesystem(dir)) inline++
  else threadPool++
}

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
function either<F extends (...args: any[]) => Promise<unknown>>(threaded: F, direct: (...args: Parameters<F>) => unknown): F {
  return ((...args: Parameters<F>) => (callsInline() ? settled(() => direct(...args)) : threaded(...args))) as F
}

export const lstat = either(fsp.lstat, (path, options) => fs.lstatSync(path, options))
export const stat = either(fsp.stat, (path, options) => fs.statSync(path, options))
// `fs.promises.realpath` is realpath(3); `realpathSync.native` is the same call.
export const realpath = either(fsp.realpath, (path, options) => fs.realpathSync.native(path, options))
export const access = either(fsp.access, (path, mode) => fs.accessSync(path, mode))
export const readlink = either(fsp.readlink, (path, options) => fs.readlinkSync(path, options as fs.EncodingOption))

/** `handle.stat()`, asked of the descriptor the handle holds. */
export function fstat(handle: FileHandle, options: { bigint: true }): Promise<fs.BigIntStats>
export function fstat(handle: FileHandle): Promise<fs.Stats>
export function fstat(handle: FileHandle, options?: { bigint: true }): Promise<fs.Stats | fs.BigIntStats> {
  if (!callsInline()) return options === undefined ? handle.stat() : handle.stat(options)
  return settled(() => (options === undefined ? fs.fstatSync(handle.fd) : fs.fstatSync(handle.fd, options)))
}
