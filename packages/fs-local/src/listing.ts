import { type FsDirEntry, type FsDirListing, type FsListOptions, type FsTarget, type FsTargetKey } from '@deepseek-ai/dsh-fs'
import { listingWindow, throwIfAborted, toListing } from '@deepseek-ai/dsh-fs/kit'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type AnchoredDir, anchorForListing } from './anchor'
import type { DiskCore } from './core'
import { mapErrors } from './errors'
import { realKey } from './identity'
import { infoOfEntry, lstatPath, statPath } from './probe'
import { isStagingName, reclaimStaging } from './staging'

export function listDirectory(core: DiskCore, target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
  const display = target.displayPath
  return mapErrors('list', display, async () => {
    throwIfAborted(signal, display)
    const dir = await anchorForListing(core.process.calls, target.targetKey, core.containment, display)
    try {
      const names = await readdir(dir.path)
      if (names.some(isStagingName)) await reclaimStaging(dir.path, names, core.process.calls)
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
  })
}

/**
 * One entry of an anchored directory. Anything but a symlink is what `lstat` says, keyed below the
 * directory's checked real path; a symlink is followed only if it leads inside the root.
 */
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
  const info = infoOfEntry(stats)
  const entry: FsDirEntry = { name, type: info.type, target: { targetKey: key as FsTargetKey, displayPath: display }, version: info.version }
  if (info.size !== undefined) entry.size = info.size
  return entry
}
