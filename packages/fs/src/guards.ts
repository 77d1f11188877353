import { FsError } from './errors'
import type { FsInfo, FsSpecialKind, FsVersion, FsWriteIntent } from './types'

/**
 * The decision every provider makes inside its critical section before a write, given what is at
 * the target right now (`undefined` = nothing). Providers that can see a dangling symlink report it
 * themselves as `FS_NOT_REGULAR_FILE`.
 */
export function checkWriteGuard(current: FsInfo | undefined, expected: FsWriteIntent | undefined, path: string): void {
  if (expected?.kind === 'replaceIfVersion') {
    if (current === undefined) throw new FsError('FS_STALE_VERSION', `${path} no longer exists`, { path })
    if (current.version !== expected.version) throw new FsError('FS_STALE_VERSION', `${path} has changed since it was read`, { path })
  }
  if (current !== undefined && current.type !== 'file') throw notRegular(current, path)
  if (expected?.kind === 'createIfAbsent' && current !== undefined) {
    throw new FsError('FS_NOT_OBSERVED', `${path} already exists`, { path })
  }
}

function notRegular(current: FsInfo, path: string): FsError {
  return new FsError('FS_NOT_REGULAR_FILE', `${path} is ${describeEntry(current)}, not a regular file`, { path })
}

const SPECIAL_NAMES: Record<FsSpecialKind, string> = {
  'fifo': 'a FIFO (named pipe)',
  'socket': 'a socket',
  'device': 'a device file',
  'broken-symlink': 'a broken symbolic link (its target does not exist)',
}

/** "a directory", "a FIFO (named pipe)", "a broken symbolic link (…)", or "a special file". */
export function describeEntry(info: Pick<FsInfo, 'type' | 'special'>): string {
  if (info.type === 'file') return 'a regular file'
  if (info.type === 'directory') return 'a directory'
  return info.special === undefined ? 'a special file' : SPECIAL_NAMES[info.special]
}

/** The edit counterpart: a missing target is stale with or without a guard; the version comes before matching. */
export function checkEditGuard(current: FsInfo | undefined, expected: { version: FsVersion } | undefined, path: string): void {
  if (current === undefined) throw new FsError('FS_STALE_VERSION', `${path} does not exist`, { path })
  if (expected !== undefined && current.version !== expected.version) {
    throw new FsError('FS_STALE_VERSION', `${path} has changed since it was read`, { path })
  }
  if (current.type !== 'file') throw notRegular(current, path)
}
