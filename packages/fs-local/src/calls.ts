import * as fs from 'node:fs'
import * as fsp from 'node:fs/promises'

/**
 * Lookups (`lstat`, `stat`, `fstat`, `realpath`, `readlink`, `access`, xattr lists) run on the loop
 * thread on a local filesystem: the kernel answers them from its caches in 2–10 µs, a thread-pool
 * round trip costs 50–100 µs (8–35 % on small writes). What else stays in the pool: `Config.inlineCalls`.
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

/** Longer paths (UTF-16 units) are looked up in the pool: a tree thousands of levels deep must not hold the loop thread. */
export const INLINE_PATH_BYTES = 512

export function isLocalFilesystem(dir: string): boolean {
  if (process.platform !== 'linux') return false
  try {
    return LOCAL_FILESYSTEMS.has(Number(fs.statfsSync(dir).type))
  } catch {
    return false
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function either<F extends (...args: any[]) => Promise<unknown>>(inline: boolean, threaded: F, direct: (...args: Parameters<F>) => unknown): F {
  if (!inline) return threaded
  return (async (...args: Parameters<F>) => (typeof args[0] === 'string' && args[0].length > INLINE_PATH_BYTES ? threaded(...args) : direct(...args))) as F
}

/** The lookups, made inline or in the thread pool (see above); `LocalProcess.calls` says which. */
export class Calls {
  readonly lstat: typeof fsp.lstat
  readonly stat: typeof fsp.stat
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

  fstat(handle: fsp.FileHandle, options: { bigint: true }): Promise<fs.BigIntStats>
  fstat(handle: fsp.FileHandle): Promise<fs.Stats>
  async fstat(handle: fsp.FileHandle, options?: { bigint: true }): Promise<fs.Stats | fs.BigIntStats> {
    if (!this.inline) return options === undefined ? handle.stat() : handle.stat(options)
    return options === undefined ? fs.fstatSync(handle.fd) : fs.fstatSync(handle.fd, options)
  }
}

export const INLINE_CALLS = new Calls(true)
export const POOLED_CALLS = new Calls(false)
