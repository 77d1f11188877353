import { FsError, type FsInspection, type FsTarget } from '@deepseek-ai/dsh-fs'
import { decodeText, type MemoryBudget, TEXT_COST_PER_BYTE, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import { closeSync, fstatSync, openSync, readSync, type BigIntStats } from 'node:fs'
import { callsInline, stat } from './calls'
import { errnoCode, mapErrors } from './errors'
import { absolutePath, checkPathSyntax, type Containment } from './identity'
import { descriptorPath, INLINE_OPEN_BYTES, type OpenedFile, openRegular, READ_FLAGS } from './open'
import { infoOfEntry, readAll, statPath } from './probe'
import { infoOf } from './version'

export interface InspectDeps {
  containment: Containment
  budget: MemoryBudget
  maxTextBytes: number
}

/**
 * A `stat` of the path as given, started beside `resolve`'s realpath so that the two cost one
 * round trip. It only ever decides whether the file may be opened (a FIFO or device never is); what
 * `inspect` answers comes from the descriptor, or from a `stat` of the resolved key. Never rejects.
 */
export function statAsGiven(path: string, cwd: string | undefined, providerCwd: string): Promise<BigIntStats | undefined> {
  try {
    checkPathSyntax(path)
    if (cwd !== undefined) checkPathSyntax(cwd)
    const absolute = absolutePath(path, cwd === undefined ? providerCwd : absolutePath(cwd, providerCwd))
    return stat(absolute, { bigint: true }).catch(() => undefined)
  } catch {
    return Promise.resolve(undefined)
  }
}

/**
 * The stat and, for a regular file within `textUpTo` bytes, the text of a target `resolve` just
 * minted (its key a realpath checked against the root a moment ago). When `given` (see
 * `statAsGiven`) shows such a file, it is opened at once: the info then comes from that
 * descriptor's `fstat` and the text from its bytes, so both name one version, and the descriptor's
 * real path is checked against the root. Anything else, or a file that changed kind meanwhile, is
 * answered from a `stat` of the key, as the separate calls would. The descriptor is closed after
 * the answer is on its way: nothing waits for a close that cannot change it.
 */
export async function inspectTarget(deps: InspectDeps, target: FsTarget, textUpTo: number | undefined, signal?: AbortSignal, given?: BigIntStats): Promise<FsInspection> {
  const display = target.displayPath
  if (given?.isFile() && textUpTo !== undefined && Number(given.size) <= Math.min(textUpTo, INLINE_READ_BYTES) && callsInline()) {
    const answer = await mapErrors('read', display, () => inspectInline(deps, target, textUpTo, signal))
    if (answer !== undefined) return answer
  }
  if (given?.isFile() && textUpTo !== undefined && Number(given.size) <= textUpTo) {
    const opened = await mapErrors('read', display, async () => {
      throwIfAborted(signal, display)
      return await openRegular(target.targetKey, display, { checked: given }).catch((error: unknown) => {
        if (FsError.is(error, 'FS_NOT_REGULAR_FILE') || ['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '')) return undefined
        throw error
      })
    })
    if (opened !== undefined) return readOpened(deps, target, opened, textUpTo, signal)
  }
  const stats = await mapErrors('stat', display, () => {
    throwIfAborted(signal, display)
    return statPath(target.targetKey)
  })
  if (stats === undefined) return { target, info: undefined }
  const info = infoOfEntry(stats)
  if (info.type !== 'file' || textUpTo === undefined || info.size === undefined || info.size > textUpTo) return { target, info }
  const opened = await mapErrors('read', display, () => openRegular(target.targetKey, display, { checked: stats }))
  return readOpened(deps, target, opened, textUpTo, signal)
}

async function readOpened(deps: InspectDeps, target: FsTarget, opened: OpenedFile, textUpTo: number, signal?: AbortSignal): Promise<FsInspection> {
  const display = target.displayPath
  return mapErrors('read', display, async () => {
    try {
      await deps.containment.check(opened.real, display)
      const size = Number(opened.stats.size)
      // Replaced between the stat and the open by a larger file: answered as the stat of what is open.
      if (size > textUpTo) return { target, info: infoOf(opened.stats) }
      const cost = TEXT_COST_PER_BYTE * Math.min(size, deps.maxTextBytes)
      return await deps.budget.with(cost, 'reading', display, signal, async () => {
        const bytes = await readAll(opened, deps.maxTextBytes, display)
        throwIfAborted(signal, display)
        // A writer that appended while we read leaves the version of the open: the next guarded
        // write is then refused as stale, never allowed over bytes that were not shown.
        return { target, info: infoOf(opened.stats), text: decodeText(bytes, display).text }
      })
    } finally {
      void opened.handle.close().catch(() => {})
    }
  })
}

/**
 * Files up to this size are opened, read and closed on the loop thread when lookups are inline
 * (`calls.ts`): a page-cached read of a few KiB costs microseconds, the open, read and close
 * through the thread pool two to three round trips. The bound keeps the one read short.
 */
const INLINE_READ_BYTES = Number(INLINE_OPEN_BYTES)

/**
 * `inspect` of a small regular file on one descriptor held only inside this call, with the same
 * checks as the thread-pool path: opened non-blocking (a FIFO swapped in after the stat returns at
 * once), refused unless its `fstat` shows a regular file, and its real path (the kernel's name for
 * the descriptor) checked against the root before a byte is read. `undefined` sends the caller to
 * the path that answers from a `stat` (the file changed kind, grew past the bound, or vanished).
 */
async function inspectInline(deps: InspectDeps, target: FsTarget, textUpTo: number, signal?: AbortSignal): Promise<FsInspection | undefined> {
  const display = target.displayPath
  throwIfAborted(signal, display)
  let fd: number
  try {
    fd = openSync(target.targetKey, READ_FLAGS)
  } catch (error) {
    if (['ENOENT', 'ENOTDIR', 'ELOOP'].includes(errnoCode(error) ?? '')) return undefined
    throw error
  }
  try {
    const stats = fstatSync(fd, { bigint: true })
    const size = Number(stats.size)
    if (!stats.isFile() || size > INLINE_READ_BYTES) return undefined
    await deps.containment.check(await descriptorPath({ fd }, target.targetKey), display)
    if (size > textUpTo) return { target, info: infoOf(stats) }
    // Read, decoded and released before any other call runs: at most one such buffer (64 KiB) at a
    // time, so nothing is reserved from the memory budget.
    const bytes = Buffer.allocUnsafe(size + 1)
    let length = 0
    // One read for a file that still has the size of its fstat (the byte more shows one that grew).
    for (let read = -1; read !== 0 && length < bytes.length && !(length === size && length > 0);) {
      read = readSync(fd, bytes, length, bytes.length - length, null)
      length += read
    }
    // Grown while read: the thread-pool path reads it whole, within its limits.
    if (length > size) return undefined
    throwIfAborted(signal, display)
    // A writer that appended or truncated while we read leaves the version of the open, as on the
    // thread-pool path: the next guarded write is then refused as stale.
    return { target, info: infoOf(stats), text: decodeText(bytes.subarray(0, length), display).text }
  } finally {
    closeSync(fd)
  }
}
