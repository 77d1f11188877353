import { FsError, type FsInspection, type FsTarget } from '@deepseek-ai/dsh-fs'
import { decodeText, TEXT_COST_PER_BYTE, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import type { BigIntStats } from 'node:fs'
import type { Calls } from './calls'
import type { DiskCore } from './core'
import { errnoCode, mapErrors } from './errors'
import { absolutePath, checkPathSyntax } from './identity'
import { type OpenedFile, openRegular } from './open'
import { infoOf, infoOfEntry, readAll, readSmallInline, statPath } from './probe'

/**
 * A `stat` of the path as given, started beside `resolve`'s realpath so the two cost one round
 * trip. It only decides whether the file may be opened (a FIFO or device never is). Never rejects.
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
 * minted. When `given` shows such a file it is opened at once, so info and text come from one
 * descriptor (one version) whose real path is checked against the root; anything else is answered
 * from a `stat` of the key, as the separate calls would.
 */
export async function inspectTarget(core: DiskCore, target: FsTarget, textUpTo: number | undefined, signal?: AbortSignal, given?: BigIntStats): Promise<FsInspection> {
  const display = target.displayPath
  const { calls } = core.process
  if (given?.isFile() && textUpTo !== undefined && Number(given.size) <= textUpTo) {
    const opened = await mapErrors('read', display, async () => {
      throwIfAborted(signal, display)
      return await openRegular(calls, target.targetKey, display, { checked: given, inline: true }).catch((error: unknown) => {
        if (FsError.is(error, 'FS_NOT_REGULAR_FILE') || ['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '')) return undefined
        throw error
      })
    })
    if (opened !== undefined) return readOpened(core, target, opened, textUpTo, signal)
  }
  const stats = await mapErrors('stat', display, () => {
    throwIfAborted(signal, display)
    return statPath(calls, target.targetKey)
  })
  if (stats === undefined) return { target, info: undefined }
  const info = infoOfEntry(stats)
  if (info.type !== 'file' || textUpTo === undefined || info.size === undefined || info.size > textUpTo) return { target, info }
  const opened = await mapErrors('read', display, () => openRegular(calls, target.targetKey, display, { checked: stats, inline: true }))
  return readOpened(core, target, opened, textUpTo, signal)
}

async function readOpened(core: DiskCore, target: FsTarget, opened: OpenedFile, textUpTo: number, signal?: AbortSignal): Promise<FsInspection> {
  const display = target.displayPath
  const { maxTextBytes } = core.options
  return mapErrors('read', display, async () => {
    try {
      await core.containment.check(opened.real, display)
      const size = Number(opened.stats.size)
      // Replaced between the stat and the open by a larger file: answered as the stat of what is open.
      if (size > textUpTo) return { target, info: infoOf(opened.stats) }
      const answer = (bytes: Uint8Array): FsInspection => {
        throwIfAborted(signal, display)
        return { target, info: infoOf(opened.stats), text: decodeText(bytes, display).text }
      }
      // A small file opened on the loop thread is read there, in one read, and released before any
      // other call runs: one such buffer at a time, so nothing is reserved for it.
      const small = readSmallInline(core.process.calls, opened)
      if (small !== undefined) {
        opened.handle.closeInline?.()
        return answer(small)
      }
      const cost = TEXT_COST_PER_BYTE * Math.min(size, maxTextBytes)
      return await core.budget.with(cost, 'reading', display, signal, async () => answer(await readAll(opened, maxTextBytes, display)))
    } finally {
      void opened.handle.close().catch(() => {})
    }
  })
}
