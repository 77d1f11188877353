import {
  type FsDirEntry, type FsDirListing, type FsInfo, type FsInspection, type FsInspectOptions, type FsListOptions, type FsReadOptions, type FsStreamFromOptions, type FsTarget, type FsTargetKey, fsError,
} from '@deepseek-ai/dsh-fs'
import { decodeText, listingWindow, TEXT_COST_PER_BYTE, throwIfAborted, toListing } from '@deepseek-ai/dsh-fs/kit'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type AnchoredDir, anchorForListing } from './anchor'
import { checkReal, realKey } from './identity'
import type { DiskCore } from './local-disk'
import { inOrder, mapErrors, toFsError } from './errors'
import { type OpenedFile, openRegular } from './open'
import { infoOf, lstatPath, readAll, readSmallInline, statPath, versionOf } from './probe'
import { isStagingName, reclaimStaging } from './staging'

const FIRST_STREAM_CHUNK = 64 * 1024
const MAX_STREAM_CHUNK = 1024 * 1024

export function statTarget(core: DiskCore, target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
  const display = target.displayPath
  return mapErrors('stat', display, async () => {
    const [, stats] = await inOrder(checkReal(core, target), statPath(core.process.calls, target.targetKey))
    return stats === undefined ? undefined : infoOf(stats)
  }, signal)
}

export function readWhole(core: DiskCore, target: FsTarget, { signal, decoding }: FsReadOptions = {}): Promise<string> {
  const display = target.displayPath
  return mapErrors('read', display, async () => {
    const opened = await openRegular(core.process.calls, target.targetKey, display)
    try {
      await core.containment.check(opened.real, display)
      return await readReserved(core, opened, display, signal, (bytes) => decodeText(bytes, display, decoding).text)
    } finally {
      await opened.handle.close().catch(() => {})
    }
  }, signal)
}

/** The bytes from `start` on, of the version `opts.version` checked on the descriptor read. */
export async function* streamFrom(core: DiskCore, target: FsTarget, start: number, opts: FsStreamFromOptions = {}): AsyncIterable<Uint8Array> {
  const display = target.displayPath
  const { signal, version } = opts
  try {
    throwIfAborted(signal, display)
    const opened = await openRegular(core.process.calls, target.targetKey, display)
    try {
      await core.containment.check(opened.real, display)
      if (version !== undefined && versionOf(opened.stats) !== version) throw fsError('FS_STALE_VERSION', { path: display })
      yield* readAhead(opened, start, core.options.streamChunkBytes, () => throwIfAborted(signal, display))
    } finally {
      await opened.handle.close().catch(() => {})
    }
  } catch (error) {
    throw toFsError(error, 'read', display)
  }
}

/** Two buffers, one read ahead while the reader holds the other; chunks grow 64 KiB → 1 MiB. */
async function* readAhead(opened: OpenedFile, start: number, fixed: number | undefined, check: () => void): AsyncIterable<Uint8Array> {
  const max = fixed ?? MAX_STREAM_CHUNK
  const buffers = [Buffer.allocUnsafe(max), Buffer.allocUnsafe(max)] as const
  let size = fixed ?? FIRST_STREAM_CHUNK
  let position = start
  const readInto = (buffer: Buffer) => {
    const read = opened.handle.read(buffer, 0, size, position)
    size = Math.min(max, size * 2)
    return read
  }
  let next: ReturnType<typeof readInto> | undefined = readInto(buffers[0])
  try {
    for (let turn = 0; ; turn ^= 1) {
      const { bytesRead } = await next
      next = undefined
      check()
      if (bytesRead === 0) return
      position += bytesRead
      next = readInto(buffers[turn ^ 1])
      yield buffers[turn].subarray(0, bytesRead)
    }
  } finally {
    // A read still in flight must finish before its descriptor is closed.
    await next?.catch(() => {})
  }
}

/** The stat and, for a file within `textUpTo`, its text (or `as: 'bytes'`) from one descriptor checked against the root. */
export async function inspectTarget(core: DiskCore, target: FsTarget, { textUpTo, signal, as = 'text', decoding }: FsInspectOptions): Promise<FsInspection> {
  const display = target.displayPath
  const { calls } = core.process
  const stats = await mapErrors('stat', display, () => statPath(calls, target.targetKey), signal)
  if (stats === undefined) return { target, info: undefined }
  if (!stats.isFile() || textUpTo === undefined || stats.size > textUpTo) return { target, info: infoOf(stats) }
  return mapErrors('read', display, async () => {
    const opened = await openRegular(calls, target.targetKey, display, { checked: stats })
    try {
      await core.containment.check(opened.real, display)
      const info = infoOf(opened.stats)
      // Replaced between the stat and the open by a larger file: answered as the stat of what is open.
      if (opened.stats.size > textUpTo) return { target, info }
      const answer = (bytes: Uint8Array): FsInspection => (as === 'bytes' ? { target, info, bytes } : { target, info, text: decodeText(bytes, display, decoding).text })
      // A small file opened on the loop thread is read there, in one read, and released before any
      // other call runs: one such buffer at a time, so nothing is reserved for it.
      const small = readSmallInline(calls, opened)
      if (small === undefined) return await readReserved(core, opened, display, signal, answer)
      throwIfAborted(signal, display)
      return answer(small)
    } finally {
      void opened.handle.close().catch(() => {})
    }
  })
}

/** The whole of `opened` (up to `maxTextBytes`), read under the memory budget while `use` makes the answer of it. */
async function readReserved<T>(core: DiskCore, opened: OpenedFile, display: string, signal: AbortSignal | undefined, use: (bytes: Uint8Array) => T): Promise<T> {
  const { maxTextBytes } = core.options
  const cost = TEXT_COST_PER_BYTE * Math.min(Number(opened.stats.size), maxTextBytes)
  return core.budget.with(cost, 'reading', display, signal, async () => {
    const bytes = await readAll(opened, maxTextBytes, display)
    throwIfAborted(signal, display)
    return use(bytes)
  })
}

export function listDirectory(core: DiskCore, target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
  const display = target.displayPath
  return mapErrors('list', display, async () => {
    const dir = await anchorForListing(core.process.calls, target.targetKey, core.containment, display)
    try {
      const names = await readdir(dir.path)
      if (names.some(isStagingName)) await reclaimStaging(dir.path, names)
      // Only the entries shown are looked at: a listing cut at 1,000 of 100,000 stats 1,000.
      const { shown, omitted } = listingWindow(names.filter((name) => !isStagingName(name)), opts)
      const entries: FsDirEntry[] = []
      for (const name of shown) {
        throwIfAborted(signal, display)
        const entry = await entryOf(core, dir, name, join(display, name))
        if (entry) entries.push(entry)
      }
      return toListing(entries, omitted)
    } finally {
      await dir.close()
    }
  }, signal)
}

/** One entry, as `lstat` says, keyed below the directory's checked path; a symlink followed only inside the root. */
async function entryOf(core: DiskCore, dir: AnchoredDir, name: string, display: string): Promise<FsDirEntry | undefined> {
  const path = join(dir.path, name)
  const { calls } = core.process
  const own = await lstatPath(calls, path)
  if (own === undefined) return undefined // removed since readdir
  let key = join(dir.checked, name)
  let stats = own
  if (own.isSymbolicLink()) {
    try {
      stats = (await statPath(calls, path)) ?? own
      key = await realKey(calls, path)
      await core.containment.check(key, display)
    } catch {
      // A link leading outside the root is listed as what it is, never followed.
      return { name, type: 'other', target: { targetKey: join(dir.checked, name) as FsTargetKey, displayPath: display } }
    }
  }
  const info = infoOf(stats)
  const entry: FsDirEntry = { name, type: info.type, target: { targetKey: key as FsTargetKey, displayPath: display }, version: info.version }
  if (info.size !== undefined) entry.size = info.size
  return entry
}
