import {
  collectWalk, FsError, type FsSearchOptions, type FsSearchResult, type FsTarget, type FsWalkEntryType, type FsWalkOptions,
  type FsWalkResult, SearchCollector, throwIfAborted, type TreeEntry, type TreeSource, walkTree,
} from '@deepseek-ai/dsh-fs'
import { constants, type Dirent } from 'node:fs'
import { lstat, open, readdir, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { mapErrors } from './errors'
import type { Containment } from './identity'
import { isStagingName } from './staging'

// Never blocks on a FIFO or device (O_NONBLOCK), never follows a final symlink (O_NOFOLLOW).
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW

/** Files read at once by a search: enough to keep the thread pool busy, few enough to bound memory. */
const READ_AHEAD = 16

function typeOf(entry: Dirent): FsWalkEntryType {
  if (entry.isFile()) return 'file'
  if (entry.isDirectory()) return 'directory'
  if (entry.isSymbolicLink()) return 'symlink'
  return 'other'
}

/**
 * The disk under a real directory as a `TreeSource`: `readdir` with file types (no stat per entry
 * unless sizes are asked for), symlinks reported from the directory entry and never followed.
 */
function diskSource(base: string, sizes: boolean): TreeSource {
  return {
    async list(dir) {
      let entries: Dirent[]
      try {
        // readdir opens with O_DIRECTORY: a FIFO in a directory's place fails instead of blocking.
        entries = await readdir(dir === '' ? base : join(base, dir), { withFileTypes: true })
      } catch (error) {
        if (dir === '') throw error
        return undefined
      }
      const listed = entries.filter((entry) => !isStagingName(entry.name)).map((entry): TreeEntry => ({ name: entry.name, type: typeOf(entry) }))
      if (sizes) {
        await Promise.all(listed.map(async (entry) => {
          if (entry.type !== 'file') return
          const stats = await lstat(join(base, dir, entry.name)).catch(() => undefined)
          if (stats !== undefined) entry.size = stats.size
        }))
      }
      return listed
    },
    async readText(path) {
      const bytes = await readRegular(join(base, path), 1024 * 1024)
      return bytes === undefined || typeof bytes === 'string' ? undefined : Buffer.from(bytes).toString('utf8')
    },
  }
}

/** The bytes of a regular file, `'large'` above `max`, or `undefined` when it is not one (or vanished). */
async function readRegular(path: string, max: number): Promise<Uint8Array | 'large' | undefined> {
  let handle
  try {
    handle = await open(path, READ_FLAGS)
  } catch {
    return undefined
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) return undefined
    if (stats.size > max) return 'large'
    return await handle.readFile()
  } catch {
    return undefined
  } finally {
    await handle.close().catch(() => {})
  }
}

/** The walk's root: a real directory inside the containment root. */
async function rootOf(target: FsTarget, containment: Containment): Promise<string> {
  const real = await realpath(target.targetKey)
  await containment.check(real, target.displayPath)
  const stats = await lstat(real)
  if (!stats.isDirectory()) throw new FsError('FS_NOT_DIRECTORY', `${target.displayPath} is not a directory`, { path: target.displayPath })
  return real
}

export function walkDisk(containment: Containment, target: FsTarget, options: FsWalkOptions & { sizes?: boolean }, signal?: AbortSignal): Promise<FsWalkResult> {
  return mapErrors('list', target.displayPath, async () => {
    throwIfAborted(signal, target.displayPath)
    const base = await rootOf(target, containment)
    return collectWalk(diskSource(base, options.sizes ?? false), options, signal)
  })
}

/** The shared collector over the disk, with a few files read ahead of the one being matched. */
export function searchDisk(containment: Containment, target: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
  return mapErrors('read', target.displayPath, async () => {
    throwIfAborted(signal, target.displayPath)
    const collector = new SearchCollector(options)
    const base = await rootOf(target, containment)
    const steps = walkTree(diskSource(base, false), options, signal)
    const queue: { path: string; bytes: Promise<Uint8Array | 'large' | undefined> }[] = []
    const drain = async (keep: number) => {
      while (queue.length > keep && !collector.done) {
        const { path, bytes } = queue.shift()!
        const read = await bytes
        if (read === 'large') collector.skipped.tooLarge++
        else if (read === undefined) collector.skipped.unreadable++
        else collector.addBytes(path, read)
      }
    }
    let complete = true
    for (;;) {
      const step = await steps.next()
      if (step.done) {
        complete = step.value
        break
      }
      const { entry, matched } = step.value
      if (!matched || entry.type !== 'file') continue
      queue.push({ path: entry.path, bytes: readRegular(join(base, entry.path), collector.maxFileBytes) })
      await drain(READ_AHEAD)
      if (collector.done) {
        await steps.return(true)
        break
      }
    }
    await drain(0)
    // Reads started ahead of a full window are settled, never left running unobserved.
    await Promise.all(queue.map((item) => item.bytes))
    return collector.result(complete)
  })
}
