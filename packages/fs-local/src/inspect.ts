import { FsError, type FsInspection, type FsTarget } from '@deepseek-ai/dsh-fs'
import { decodeText, type MemoryBudget, TEXT_COST_PER_BYTE, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import type { BigIntStats } from 'node:fs'
import type { Calls } from './calls'
import { errnoCode, mapErrors } from './errors'
import { absolutePath, checkPathSyntax, type Containment } from './identity'
import { type OpenedFile, openRegular } from './open'
import { infoOfEntry, readAll, readSmallInline, statPath } from './probe'
import { infoOf } from './version'

export interface InspectDeps {
  calls: Calls
  containment: Containment
  budget: MemoryBudget
  maxTextBytes: number
  /** What a small file's content is answered as (`inspect`'s `as`). */
  as?: 'text' | 'bytes'
}

/**
 * A `stat` of the path as given, started beside `resolve`'s realpath so that the two cost one
 * round trip. It only ever decides whether the file may be opened (a FIFO or device never is); what
 * `inspect` answers comes from the descriptor, or from a `stat` of the resolved key. Never rejects.
 */
export function statAsGiven(calls: Calls, path: string, cwd: string | undefined, providerCwd: string): Promise<BigIntStats | undefined> {
  try {
    checkPathSyntax(path)
    if (cwd !== undefined) checkPathSyntax(cwd)
    const absolute = absolutePath(path, cwd === undefined ? providerCwd : absolutePath(cwd, providerCwd))
    return calls.stat(absolute, { bigint: true }).catch(() => undefined)
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
  if (given?.isFile() && textUpTo !== undefined && Number(given.size) <= textUpTo) {
    const opened = await mapErrors('read', display, async () => {
      throwIfAborted(signal, display)
      return await openRegular(deps.calls, target.targetKey, display, { checked: given, inline: true }).catch((error: unknown) => {
        if (FsError.is(error, 'FS_NOT_REGULAR_FILE') || ['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '')) return undefined
        throw error
      })
    })
    if (opened !== undefined) return readOpened(deps, target, opened, textUpTo, signal)
  }
  const stats = await mapErrors('stat', display, () => {
    throwIfAborted(signal, display)
    return statPath(deps.calls, target.targetKey)
  })
  if (stats === undefined) return { target, info: undefined }
  const info = infoOfEntry(stats)
  if (info.type !== 'file' || textUpTo === undefined || info.size === undefined || info.size > textUpTo) return { target, info }
  const opened = await mapErrors('read', display, () => openRegular(deps.calls, target.targetKey, display, { checked: stats, inline: true }))
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
      // A writer that appended while we read leaves the version of the open: the next guarded
      // write is then refused as stale, never allowed over bytes that were not shown.
      const answer = (bytes: Uint8Array): FsInspection => {
        throwIfAborted(signal, display)
        const info = infoOf(opened.stats)
        return deps.as === 'bytes' ? { target, info, bytes } : { target, info, text: decodeText(bytes, display).text }
      }
      // A small file opened on the loop thread is read there too, in one read, and released before
      // any other call runs: at most one such buffer at a time, so nothing is reserved for it.
      const small = readSmallInline(deps.calls, opened)
      if (small !== undefined) {
        opened.handle.closeInline?.()
        return answer(small)
      }
      const cost = TEXT_COST_PER_BYTE * Math.min(size, deps.maxTextBytes)
      return await deps.budget.with(cost, 'reading', display, signal, async () => answer(await readAll(opened, deps.maxTextBytes, display)))
    } finally {
      void opened.handle.close().catch(() => {})
    }
  })
}
