import { FsError, fsError, type FsInfo, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { type TextStyle, TextStyleProbe } from '@deepseek-ai/dsh-fs/kit'
import { type BigIntStats, readSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { type AnchoredDir, anchorExisting } from './anchor'
import { type Calls, INLINE_IO_BYTES } from './calls'
import type { DiskCore } from './local-disk'
import { closeOnFailure, errnoCode, ifMissing, isMissing } from './errors'
import { type OpenedFile, openRegular } from './open'

/** What a mutation finds at its target, inside the critical section. */
export type Probe =
  | { kind: 'absent' }
  /** A directory, special file or dangling symlink: something in the way that is not a file. */
  | { kind: 'other'; info: FsInfo }
  /** A regular file, open for reading; `info` comes from the descriptor, so it matches the bytes. */
  | { kind: 'file'; info: FsInfo; opened: OpenedFile }

/** `stat` of `path`; a dangling symlink is its `lstat` (`other`), not absent: no write goes through it. */
export async function statPath(calls: Calls, path: string): Promise<BigIntStats | undefined> {
  const stats = await calls.stat(path, { bigint: true }).catch(ifMissing)
  if (stats !== undefined) return stats
  const link = await lstatPath(calls, path)
  return link?.isSymbolicLink() ? link : undefined
}

/** What `stats` says is there, when it is no regular file to open. */
const notFile = (stats: BigIntStats | undefined): Probe => (stats === undefined ? { kind: 'absent' } : { kind: 'other', info: infoOf(stats) })

/** Classifies the target and, for a regular file, opens it (without ever blocking on a special file). */
export async function probe(calls: Calls, path: string, display: string): Promise<Probe> {
  const stats = await statPath(calls, path)
  if (!stats?.isFile()) return notFile(stats)
  try {
    const opened = await openRegular(calls, path, display, { checked: stats })
    return { kind: 'file', info: infoOf(opened.stats), opened }
  } catch (error) {
    // Deleted or swapped between the stat and the open: what is there now, unless a file again.
    const now = isMissing(error) || FsError.is(error, 'FS_NOT_REGULAR_FILE') ? await statPath(calls, path) : stats
    if (!now?.isFile()) return notFile(now)
    throw error
  }
}

/** `lstat` of `path`, or `undefined` when nothing is there (or a component is not a directory). */
export function lstatPath(calls: Calls, path: string): Promise<BigIntStats | undefined> {
  return calls.lstat(path, { bigint: true }).catch(ifMissing)
}

/** Reads a whole opened file, refusing one above `limit` bytes (also one that grows while read); one `read` when it kept its size. */
export async function readAll(opened: OpenedFile, limit: number, display: string): Promise<Uint8Array> {
  const size = opened.stats.size
  if (size > BigInt(limit)) throw tooLarge(display, limit)
  // One byte more than expected: a file that grew shows it in the same read.
  let buffer = Buffer.allocUnsafe(Number(size) + 1)
  let length = 0
  for (;;) {
    if (length === buffer.length) {
      if (length > limit) throw tooLarge(display, limit)
      const grown = Buffer.allocUnsafe(Math.min(limit + 1, Math.max(buffer.length * 2, 64 * 1024)))
      buffer.copy(grown, 0, 0, length)
      buffer = grown
    }
    const { bytesRead } = await opened.handle.read(buffer, length, buffer.length - length, null)
    if (bytesRead === 0) break
    length += bytesRead
    // The size the version was taken at, reached without growing past it: the file is whole.
    if (length === Number(size) && buffer.length === length + 1) break
  }
  if (length > limit) throw tooLarge(display, limit)
  return buffer.subarray(0, length)
}

/** A small file opened on the loop thread, read there at offset 0; `undefined` for any other, or one that changed size (`readAll` reads it). */
export function readSmallInline(calls: Calls, opened: OpenedFile): Uint8Array | undefined {
  const size = Number(opened.stats.size)
  if (!calls.inline || size > INLINE_IO_BYTES) return undefined
  const buffer = Buffer.allocUnsafe(size + 1)
  let length = 0
  for (let read = -1; read !== 0 && length <= size;) {
    read = readSync(opened.handle.fd, buffer, length, buffer.length - length, length)
    length += read
  }
  return length === size ? buffer.subarray(0, size) : undefined
}

function tooLarge(display: string, limit: number): FsError {
  return fsError('FS_TOO_LARGE', { path: display, reason: `is larger than ${limit} bytes` })
}

/** The style (BOM, CRLF throughout) of an opened file, read from its start only as far as `TextStyleProbe` needs. */
export async function inspectStyle(opened: OpenedFile, content: string): Promise<TextStyle | null> {
  const probe = new TextStyleProbe(content)
  const buffer = Buffer.allocUnsafe(64 * 1024)
  for (let position = 0; ;) {
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, position)
    if (bytesRead === 0) return probe.end(true)
    position += bytesRead
    if (probe.push(buffer.subarray(0, bytesRead))) return probe.end(false)
  }
}

/** dev, inode, size, mtime and ctime in nanoseconds (ctime cannot be set back from user space). */
export function versionOf(stats: BigIntStats): FsVersion {
  return `${stats.dev.toString(36)}.${stats.ino.toString(36)}.${stats.size.toString(36)}.${stats.mtimeNs.toString(36)}.${stats.ctimeNs.toString(36)}` as FsVersion
}

/** What `stats` says; a symlink is only stat'ed when it is dangling (`statPath`). */
export function infoOf(stats: BigIntStats): FsInfo {
  const version = versionOf(stats)
  if (stats.isFile()) return { version, type: 'file', size: Number(stats.size) }
  if (stats.isDirectory()) return { version, type: 'directory' }
  if (stats.isSymbolicLink()) return { version, type: 'other', special: 'broken-symlink' }
  return { version, type: 'other', special: stats.isFIFO() ? 'fifo' : stats.isSocket() ? 'socket' : 'device' }
}

/** What a mutation found, where it publishes, and the parent already anchored (and checked) for it. */
export interface Found {
  probe: Probe
  /** The real path the new bytes are published at. */
  destination: string
  /** The destination's directory, anchored and inside the root; `undefined` when it must still be anchored (created). */
  anchor: AnchoredDir | undefined
  /** Closes what is open. The previous file stays open past the `rename` over it: freeing its inode inside the `rename` cost 0.4 ms. */
  close(): Promise<void>
}

function found(probe: Probe, destination: string, anchor: AnchoredDir | undefined): Found {
  return {
    probe, destination, anchor,
    close: () => Promise.all([probe.kind === 'file' ? probe.opened.handle.close().catch(() => {}) : undefined, anchor?.close()]).then(() => {}),
  }
}

/** The other names of a replaced file, which keep its old bytes (see `FsWriteOutcome.detachedLinks`). */
export function detachedLinks(probe: Probe): { detachedLinks?: number } {
  const links = probe.kind === 'file' ? Number(probe.opened.stats.nlink) : 1
  return links > 1 ? { detachedLinks: links - 1 } : {}
}

/** What a mutation finds: the parent anchored and checked, the target opened `O_NOFOLLOW` in it; a symlink there is followed by path (`foundByPath`). */
export async function find(core: DiskCore, target: FsTarget, display: string): Promise<Found> {
  const key = target.targetKey
  const name = basename(key)
  const { calls } = core.process
  const anchored = await anchorExisting(core, dirname(key), display, (path) => lstatPath(calls, join(path, name)))
  if (anchored === undefined) return foundByPath(core, key, display, undefined)
  const { anchor, also: entry } = anchored
  return closeOnFailure(() => anchor.close(), async () => {
    const destination = join(anchor.checked, name)
    if (entry === undefined || !(entry.isFile() || entry.isSymbolicLink())) return found(notFile(entry), destination, anchor)
    if (entry.isFile()) {
      try {
        const opened = await openRegular(calls, join(anchor.path, name), display, { checked: entry, real: destination })
        return found({ kind: 'file', info: infoOf(opened.stats), opened }, destination, anchor)
      } catch (error) {
        // Replaced between the lookup and the open: look again by path.
        if (!isMissing(error) && errnoCode(error) !== 'ELOOP' && !FsError.is(error, 'FS_NOT_REGULAR_FILE')) throw error
      }
    }
    return foundByPath(core, key, display, anchor)
  })
}

/** The probe by the key's path (a final symlink followed, where it leads checked before a byte is read); `anchor` is kept if it holds the destination. */
async function foundByPath(core: DiskCore, key: string, display: string, anchor: AnchoredDir | undefined): Promise<Found> {
  const current = await probe(core.process.calls, key, display)
  let destination = key
  if (current.kind === 'file') {
    destination = current.opened.real
    await closeOnFailure(() => current.opened.handle.close(), () => core.containment.check(destination, display))
  }
  const keep = dirname(destination) === anchor?.checked
  if (!keep) await anchor?.close()
  return found(current, destination, keep ? anchor : undefined)
}
