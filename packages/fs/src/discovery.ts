import type { FsSearchOptions, FsSearchResult, FsWalkOptions, FsWalkResult } from './discovery-types'
import { FsError, fsError, throwIfAborted } from './errors'
import { checkEditGuard } from './guards'
import { Buffer } from 'node:buffer'
import { EDIT_COST_PER_BYTE, processMemoryBudget } from './budget'
import { planReserved, Reservation } from './reservation'
import { applyEdits } from './multi-edit'
import { searchTree } from './search'
import type { FileSystem } from './service'
import type { FsEditOptions, FsEditOutcome, FsEditRequest, FsTarget } from './types'
import { collectWalk, type TreeEntry, type TreeSource } from './walk'

/*
 * The defaults behind `FileSystem.walk`, `search` and `editTextMany`, built only from the required
 * methods, so every provider has them. Providers with a faster way override the methods.
 */

/**
 * A tree made of `listDir` calls. `listDir` follows symlinks and cannot say an entry is one, so
 * this source relies on the provider's listing to keep out what is outside its root, and lists a
 * directory reached twice (through a link, by its key) only once: a link cycle cannot loop.
 */
export function listDirSource(fs: FileSystem, root: FsTarget): TreeSource & { target(path: string): FsTarget | undefined } {
  const targets = new Map<string, FsTarget>([['', root]])
  const listed = new Set<string>()
  return {
    target: (path) => targets.get(path),
    async list(dir, signal) {
      const target = targets.get(dir)
      if (target === undefined || listed.has(target.targetKey)) return undefined
      listed.add(target.targetKey)
      let entries
      try {
        entries = await fs.listDir(target, signal)
      } catch (error) {
        if (!FsError.is(error) || error.code === 'FS_ABORTED' || dir === '') throw error
        return undefined
      }
      return entries.map((entry): TreeEntry => {
        const path = dir === '' ? entry.name : `${dir}/${entry.name}`
        targets.set(path, entry.target)
        return entry.size === undefined ? { name: entry.name, type: entry.type } : { name: entry.name, type: entry.type, size: entry.size }
      })
    },
    async readText(path, signal) {
      const target = targets.get(path)
      if (target === undefined) return undefined
      try {
        return await fs.readText(target, signal)
      } catch (error) {
        if (FsError.is(error, 'FS_ABORTED')) throw error
        return undefined
      }
    },
  }
}

export async function defaultWalk(fs: FileSystem, root: FsTarget, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
  return collectWalk(listDirSource(fs, root), options, signal)
}

export async function defaultSearch(fs: FileSystem, root: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
  const source = listDirSource(fs, root)
  return searchTree(source, async (path, _size, signal) => {
    const target = source.target(path)
    return target === undefined ? undefined : fs.readText(target, signal)
  }, options, signal)
}

const ATTEMPTS = 5

/**
 * `editTextMany` from `stat`, `readText` and a `replaceIfVersion` write: the text is read between
 * two stats of one version (so it is that version's), planned, and published only if the file is
 * still at it. The provider's own guarded write keeps the BOM and line endings. An unguarded edit
 * that loses a race plans again on the new text; a guarded one is stale.
 *
 * The bounds of `applyEdits` hold (`DEFAULT_MAX_TEXT_BYTES` per step, the count and work caps), and
 * applying reserves what an edit does from the process's memory budget, after the read (which
 * reserves its own) and released before the write (which may too): nested reservations could wait
 * on each other. The providers of this repository override this with their own edit machinery.
 */
export async function defaultEditTextMany(
  fs: FileSystem, target: FsTarget, edits: readonly FsEditRequest[], { expected, signal }: FsEditOptions = {},
): Promise<FsEditOutcome> {
  const path = target.displayPath
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal, path)
    const seen = await fs.stat(target, signal)
    checkEditGuard(seen, expected, path)
    const text = await fs.readText(target, signal)
    const still = await fs.stat(target, signal)
    if (still?.version !== seen!.version) {
      if (expected !== undefined) throw fsError('FS_STALE_VERSION', { path })
      if (attempt >= ATTEMPTS) throw fsError('FS_IO_ERROR', { path, reason: 'kept changing while it was read' })
      continue
    }
    const textBytes = Buffer.byteLength(text)
    const memory = new Reservation(processMemoryBudget(), 'editing', path, signal)
    let applied
    try {
      await memory.ensure(EDIT_COST_PER_BYTE * textBytes)
      applied = await planReserved(memory, (heldBytes) => applyEdits(text, edits, path, { textBytes, heldBytes }))
    } finally {
      memory.release()
    }
    const replacements = applied.replacements.reduce((sum, count) => sum + count, 0)
    if (applied.text === text) return { version: seen!.version, before: text, after: text, replacements, steps: applied.steps }
    try {
      const outcome = await fs.writeText(target, applied.text, { expected: { kind: 'replaceIfVersion', version: seen!.version }, signal })
      return { version: outcome.version, before: text, after: applied.text, replacements, steps: applied.steps }
    } catch (error) {
      if (expected !== undefined || !FsError.is(error, 'FS_STALE_VERSION') || attempt >= ATTEMPTS) throw error
    }
  }
}
