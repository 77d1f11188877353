import { createRequire } from 'node:module'
import { errnoCode } from './errors'

/**
 * Open-file-description locks (`F_OFD_SETLK` on Linux, `flock` on macOS), through the
 * `fs-native-extensions` addon: the kernel drops such a lock when the last descriptor of its open
 * file goes, and so when its process dies, in whatever PID namespace. Holding one is how a writer
 * proves it is alive to any other dsh on the machine; no clock is involved. A descriptor opened for
 * writing takes an exclusive lock, one opened for reading a shared one.
 */
interface LockAddon {
  tryLock(fd: number, offset: number, length: number, opts: { shared: boolean }): boolean
}

// Loaded by a computed name at run time so that bundlers leave the native module alone.
const ADDON = 'fs-native-extensions'
const addon = ((): LockAddon | undefined => {
  try {
    return createRequire(import.meta.url)(ADDON) as LockAddon
  } catch {
    return undefined
  }
})()

/** Errors of a filesystem (or platform) that has no such locks: nothing can be proven there. */
const UNSUPPORTED = new Set(['ENOLCK', 'ENOSYS', 'EOPNOTSUPP', 'ENOTSUP', 'EINVAL'])

/**
 * Tries to lock the whole file open as `fd`, without waiting: `held` (ours now), `busy` (another
 * open file holds it) or `unsupported` (no kernel locks here).
 */
export function tryHold(fd: number, shared = false): 'held' | 'busy' | 'unsupported' {
  if (addon === undefined) return 'unsupported'
  try {
    return addon.tryLock(fd, 0, 0, { shared }) ? 'held' : 'busy'
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'EACCES' || code === 'EAGAIN') return 'busy'
    if (UNSUPPORTED.has(code ?? '')) return 'unsupported'
    throw error
  }
}

/** Whether this platform has the addon at all. */
export const KERNEL_LOCKS = addon !== undefined
