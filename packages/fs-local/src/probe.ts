import { FsError, type FsInfo } from '@deepseek-ai/dsh-fs'
import type { BigIntStats } from 'node:fs'
import { lstat, stat } from 'node:fs/promises'
import { errnoCode } from './errors'
import { type OpenedFile, openRegular } from './open'
import { infoOf, versionOf } from './version'

/** What a mutation finds at its target, inside the critical section. */
export type Probe =
  | { kind: 'absent' }
  /** A directory, special file or dangling symlink: something in the way that is not a file. */
  | { kind: 'other'; info: FsInfo }
  /** A regular file, open for reading; `info` comes from the descriptor, so it matches the bytes. */
  | { kind: 'file'; info: FsInfo; opened: OpenedFile }

function isMissing(error: unknown): boolean {
  const code = errnoCode(error)
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/**
 * Metadata of `path`, following symlinks. A dangling symlink is reported as `other` (versioned by
 * the link itself) rather than absent: a writer must not create through it or replace it.
 */
export async function statPath(path: string): Promise<BigIntStats | undefined> {
  try {
    return await stat(path, { bigint: true })
  } catch (error) {
    if (!isMissing(error)) throw error
  }
  try {
    const link = await lstat(path, { bigint: true })
    return link.isSymbolicLink() ? link : undefined
  } catch (error) {
    if (isMissing(error)) return undefined
    throw error
  }
}

export function infoOfEntry(stats: BigIntStats): FsInfo {
  // A symlink only reaches here when it is dangling.
  return stats.isSymbolicLink() ? { version: versionOf(stats), type: 'other' } : infoOf(stats)
}

/** Classifies the target and, for a regular file, opens it (without ever blocking on a special file). */
export async function probe(path: string, display: string): Promise<Probe> {
  const stats = await statPath(path)
  if (stats === undefined) return { kind: 'absent' }
  if (!stats.isFile()) return { kind: 'other', info: infoOfEntry(stats) }
  let opened: OpenedFile
  try {
    opened = await openRegular(path, display)
  } catch (error) {
    // Deleted or swapped between the stat and the open: classify what is there now.
    if (isMissing(error) || FsError.is(error, 'FS_NOT_REGULAR_FILE')) {
      const now = await statPath(path)
      if (now === undefined) return { kind: 'absent' }
      if (!now.isFile()) return { kind: 'other', info: infoOfEntry(now) }
    }
    throw error
  }
  return { kind: 'file', info: infoOf(opened.stats), opened }
}

/** Reads a whole opened file, refusing one above `limit` bytes (also if it grows while we read). */
export async function readAll(opened: OpenedFile, limit: number, display: string): Promise<Uint8Array> {
  if (opened.stats.size > BigInt(limit)) throw tooLarge(display, limit)
  const bytes = await opened.handle.readFile()
  if (bytes.length > limit) throw tooLarge(display, limit)
  return bytes
}

function tooLarge(display: string, limit: number): FsError {
  return new FsError('FS_TOO_LARGE', `${display} is larger than ${limit} bytes`, { path: display })
}
