import {
  fsError, type FsSearchOptions, type FsSearchResult, type FsTarget, type FsWalkEntryType, type FsWalkOptions, type FsWalkResult,
} from '@deepseek-ai/dsh-fs'
import { collectWalk, SearchCollector, throwIfAborted, type TreeEntry, type TreeSource, visitTree } from '@deepseek-ai/dsh-fs/kit'
import { closeSync, constants, type Dirent, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs'
import { lstat, open, realpath } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import { join } from 'node:path'
import { mapErrors } from './errors'
import type { Containment } from './identity'
import { isStagingName } from './staging'

// Never blocks on a FIFO or device (O_NONBLOCK), never follows a final symlink (O_NOFOLLOW).
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW

/**
 * Small directories and files are read synchronously, in slices of at most `SLICE_MS` after which
 * the event loop gets a turn: a thread-pool round trip per `open`/`read`/`close` costs more than the
 * read itself for the small files a source tree is made of (measured: 4–10× slower overall).
 * Files above `SYNC_MAX_BYTES` are read asynchronously, so one call never holds the loop for long.
 */
const SLICE_MS = 4
const SYNC_MAX_BYTES = 256 * 1024

/** Gives the event loop a turn once the current synchronous slice has run for `SLICE_MS`. */
class Slicer {
  #start = performance.now()

  async pause(): Promise<void> {
    if (performance.now() - this.#start < SLICE_MS) return
    await new Promise((resume) => setImmediate(resume))
    this.#start = performance.now()
  }
}

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
function diskSource(base: string, sizes: boolean, slicer: Slicer): TreeSource {
  return {
    async list(dir) {
      await slicer.pause()
      let entries: Dirent[]
      // `dir` is made of listed names (never `.` or `..`): plain concatenation is its path.
      const path = dir === '' ? base : `${base}/${dir}`
      try {
        // readdir opens with O_DIRECTORY: a FIFO in a directory's place fails instead of blocking.
        entries = readdirSync(path, { withFileTypes: true })
      } catch (error) {
        if (dir === '') throw error
        return undefined
      }
      const listed: TreeEntry[] = []
      for (const entry of entries) if (!isStagingName(entry.name)) listed.push({ name: entry.name, type: typeOf(entry) })
      if (sizes) {
        for (const entry of listed) {
          if (entry.type !== 'file') continue
          await slicer.pause()
          const stats = lstatSync(`${path}/${entry.name}`, { throwIfNoEntry: false })
          if (stats !== undefined) entry.size = stats.size
        }
      }
      return listed
    },
    async readText(path) {
      const bytes = await readRegular(join(base, path), 1024 * 1024)
      return bytes === undefined || typeof bytes === 'string' ? undefined : Buffer.from(bytes).toString('utf8')
    },
  }
}

/**
 * `readRegular` for small files, synchronously: `'async'` when the file is above `SYNC_MAX_BYTES`
 * (and below `max`), for the caller to read it with `readRegular`.
 */
function readSmall(path: string, max: number): Uint8Array | 'large' | 'async' | undefined {
  let fd: number
  try {
    fd = openSync(path, READ_FLAGS)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return undefined
    if (stats.size > max) return 'large'
    if (stats.size > SYNC_MAX_BYTES) return 'async'
    const buffer = Buffer.allocUnsafe(stats.size)
    let filled = 0
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled)
      if (read === 0) break
      filled += read
    }
    return buffer.subarray(0, filled)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
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
  if (!stats.isDirectory()) throw fsError('FS_NOT_DIRECTORY', { path: target.displayPath })
  return real
}

export function walkDisk(containment: Containment, target: FsTarget, options: FsWalkOptions & { sizes?: boolean }, signal?: AbortSignal): Promise<FsWalkResult> {
  return mapErrors('list', target.displayPath, async () => {
    throwIfAborted(signal, target.displayPath)
    const base = await rootOf(target, containment)
    return collectWalk(diskSource(base, options.sizes ?? false, new Slicer()), options, signal)
  })
}

/** The shared collector over the disk; small files are read in synchronous slices. */
export function searchDisk(containment: Containment, target: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
  return mapErrors('read', target.displayPath, async () => {
    throwIfAborted(signal, target.displayPath)
    const collector = new SearchCollector(options)
    const base = await rootOf(target, containment)
    const slicer = new Slicer()
    const complete = await visitTree(diskSource(base, false, slicer), options, async ({ entry, matched }) => {
      if (!matched || entry.type !== 'file') return
      await slicer.pause()
      const path = join(base, entry.path)
      let read = readSmall(path, collector.maxFileBytes)
      if (read === 'async') read = await readRegular(path, collector.maxFileBytes)
      if (read === 'large') collector.skipped.tooLarge++
      else if (read === undefined) collector.skipped.unreadable++
      else collector.addBytes(entry.path, read)
      return !collector.done
    }, signal)
    return collector.result(complete)
  })
}
