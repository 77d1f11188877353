import { type FsError, fsError } from './errors'
import type { FsInfo, FsSpecialKind, FsVersion, FsWriteIntent } from './types'

/**
 * The decision every provider makes inside its critical section before a write, given what is at
 * the target right now (`undefined` = nothing). Providers that can see a dangling symlink report it
 * themselves as `FS_NOT_REGULAR_FILE`.
 */
export function checkWriteGuard(current: FsInfo | undefined, expected: FsWriteIntent | undefined, path: string): void {
  if (expected?.kind === 'replaceIfVersion') {
    if (current === undefined) throw fsError('FS_STALE_VERSION', { path, gone: true })
    if (current.version !== expected.version) throw fsError('FS_STALE_VERSION', { path })
  }
  if (current !== undefined && current.type !== 'file') throw notRegular(current, path)
  if (expected?.kind === 'createIfAbsent' && current !== undefined) {
    throw fsError('FS_NOT_OBSERVED', { path })
  }
}

function notRegular(current: FsInfo, path: string): FsError {
  return fsError('FS_NOT_REGULAR_FILE', { path, entry: describeEntry(current) })
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
  // Without a guard the file may never have existed: stale all the same, since an edit needs a base.
  if (current === undefined) throw fsError('FS_STALE_VERSION', { path, reason: 'does not exist' })
  if (expected !== undefined && current.version !== expected.version) {
    throw fsError('FS_STALE_VERSION', { path })
  }
  if (current.type !== 'file') throw notRegular(current, path)
}

/** The source of a `remove` or `rename`: guarded exactly as an edit's target (missing is stale, the version first). */
export function checkRemoveGuard(current: FsInfo | undefined, expected: { version: FsVersion } | undefined, path: string): void {
  checkEditGuard(current, expected, path)
}

/** The destination of a `rename`: it must be free, as for a `createIfAbsent` write; a move onto its own source is refused. */
export function checkMoveDestination(current: FsInfo | undefined, sameAsSource: boolean, path: string): void {
  if (sameAsSource) throw fsError('FS_INVALID_PATH', { path, reason: 'is the file being moved; a move needs another destination' })
  checkWriteGuard(current, { kind: 'createIfAbsent' }, path)
}
