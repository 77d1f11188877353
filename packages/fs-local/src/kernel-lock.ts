import { createRequire } from 'node:module'
import { errnoCode } from './errors'

/** A native addon, loaded by a computed name at run time (bundlers leave it alone); `undefined` where it has no build. */
export function loadAddon<T>(name: string): T | undefined {
  try {
    return createRequire(import.meta.url)(name) as T
  } catch {
    return undefined
  }
}

/**
 * Open-file-description locks (`F_OFD_SETLK` on Linux, `flock` on macOS) through
 * `fs-native-extensions`: the kernel drops one when its open file's last descriptor goes, so when
 * its process dies, in any PID namespace. Holding one is how a writer proves it is alive to any
 * other dsh on the machine; no clock is involved.
 */
const addon = loadAddon<{ tryLock(fd: number, offset: number, length: number, opts: { shared: boolean }): boolean }>('fs-native-extensions')

/** Errors of a filesystem (or platform) that has no such locks: nothing can be proven there. */
const UNSUPPORTED = new Set(['ENOLCK', 'ENOSYS', 'EOPNOTSUPP', 'ENOTSUP', 'EINVAL'])

/** Tries to lock the whole file open as `fd`, without waiting. */
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
