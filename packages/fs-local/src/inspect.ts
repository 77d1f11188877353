import { decodeText, type FsInspection, type MemoryBudget, TEXT_COST_PER_BYTE, type FsTarget, throwIfAborted } from '@deepseek-ai/dsh-fs'
import type { Containment } from './identity'
import { mapErrors } from './errors'
import { openRegular } from './open'
import { infoOfEntry, readAll, statPath } from './probe'
import { infoOf } from './version'

export interface InspectDeps {
  containment: Containment
  budget: MemoryBudget
  maxTextBytes: number
}

/**
 * The stat and, for a regular file within `textUpTo` bytes, the text of a target `resolve` just
 * minted (so its key is a realpath checked against the root a moment ago). One `stat` decides, so
 * a FIFO or device is never opened; the text comes from the descriptor that stat led to, and the
 * info from that descriptor's `fstat`, so both name one version. The descriptor is closed after the
 * answer is on its way: nothing waits for a close that cannot change it.
 */
export async function inspectTarget(deps: InspectDeps, target: FsTarget, textUpTo: number | undefined, signal?: AbortSignal): Promise<FsInspection> {
  const display = target.displayPath
  const stats = await mapErrors('stat', display, () => {
    throwIfAborted(signal, display)
    return statPath(target.targetKey)
  })
  if (stats === undefined) return { target, info: undefined }
  const info = infoOfEntry(stats)
  if (info.type !== 'file' || textUpTo === undefined || info.size === undefined || info.size > textUpTo) return { target, info }
  return mapErrors('read', display, async () => {
    const opened = await openRegular(target.targetKey, display, { checked: stats })
    try {
      await deps.containment.check(opened.real, display)
      const size = Number(opened.stats.size)
      // Replaced between the stat and the open by a larger file: answered as the stat of what is open.
      if (size > textUpTo) return { target, info: infoOf(opened.stats) }
      const cost = TEXT_COST_PER_BYTE * Math.min(size, deps.maxTextBytes)
      return await deps.budget.with(cost, `reading ${display}`, display, signal, async () => {
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
