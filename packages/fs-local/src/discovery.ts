import {
  FsError, fsError, type FsSearchOptions, type FsSearchResult, type FsTarget, type FsWalkEntryType, type FsWalkOptions, type FsWalkResult,
} from '@deepseek-ai/dsh-fs'
import { collectWalk, loadLinearEngine, SearchCollector, throwIfAborted, type TreeEntry, type TreeSource, visitTree } from '@deepseek-ai/dsh-fs/kit'
import { closeSync, constants, type Dirent, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs'
import { lstat, realpath } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import { mapErrors } from './errors'
import type { Containment } from './identity'
import { POOLED_CALLS } from './calls'
import { openRegular, READ_FLAGS as OPEN_FLAGS } from './open'
import { readAll } from './probe'
import { isStagingName } from './staging'
import { CAN_ANCHOR } from './anchor'

// The reads of `openRegular` (never blocking on a FIFO or device), and never through a final symlink.
const READ_FLAGS = OPEN_FLAGS | constants.O_NOFOLLOW

/** Small directories and files are read synchronously in slices of `SLICE_MS` (a pool trip each cost 4–10× overall); files above `SYNC_MAX_BYTES` asynchronously. */
const SLICE_MS = 4
const SYNC_MAX_BYTES = 256 * 1024
/** The reused read buffer of a search: one read takes a whole file up to this size. */
const SCRATCH_BYTES = 64 * 1024

/** Gives the event loop a turn once the current synchronous slice has run for `SLICE_MS`. */
class Slicer {
  #start = performance.now()

  due(): boolean {
    return performance.now() - this.#start >= SLICE_MS
  }

  async pause(): Promise<void> {
    if (!this.due()) return
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

/** The disk under a real directory as a `TreeSource`: `readdir` with file types (a stat only for sizes), symlinks never followed, every directory held (`AnchoredTree`). */
function diskSource(tree: AnchoredTree, sizes: boolean, slicer: Slicer): TreeSource {
  return {
    async list(dir) {
      await slicer.pause()
      let entries: Dirent[]
      const path = tree.enter(dir)
      if (path === undefined) return undefined
      try {
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
      const location = tree.fileAt(path)
      if (location === undefined) return undefined
      const bytes = await readRegular(location, 1024 * 1024)
      return bytes === undefined || typeof bytes === 'string' ? undefined : Buffer.from(bytes).toString('utf8')
    },
    leave: (dir) => tree.leave(dir),
  }
}

/**
 * One read into `scratch`, without the `fstat` that cost a quarter of a search (`O_NONBLOCK`: a FIFO
 * swapped in is not waited on); only a read that fills `scratch` is followed by one. The result may
 * view `scratch` until the next call; above `SYNC_MAX_BYTES` it is `'async'` (`readRegular`).
 */
function readSmall(path: string, max: number, scratch: Buffer): Uint8Array | 'large' | 'async' | undefined {
  let fd: number
  try {
    fd = openSync(path, READ_FLAGS)
  } catch {
    return undefined
  }
  try {
    const first = readSync(fd, scratch, 0, scratch.length, 0)
    if (first < scratch.length) return first > max ? 'large' : scratch.subarray(0, first)
    const stats = fstatSync(fd)
    if (!stats.isFile()) return undefined
    if (stats.size > max) return 'large'
    if (stats.size > SYNC_MAX_BYTES) return 'async'
    const buffer = Buffer.allocUnsafe(stats.size)
    let filled = scratch.copy(buffer, 0, 0, first)
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
  try {
    const opened = await openRegular(POOLED_CALLS, path, path, { real: path })
    try {
      return await readAll(opened, max, path)
    } finally {
      await opened.handle.close().catch(() => {})
    }
  } catch (error) {
    return FsError.is(error, 'FS_TOO_LARGE') ? 'large' : undefined
  }
}

/** `task` over the walk's root, a real directory inside the containment root, held open until `task` settles. */
async function inTree<T>(target: FsTarget, containment: Containment, task: (tree: AnchoredTree) => Promise<T>): Promise<T> {
  const real = await realpath(target.targetKey)
  await containment.check(real, target.displayPath)
  const stats = await lstat(real)
  if (!stats.isDirectory()) throw fsError('FS_NOT_DIRECTORY', { path: target.displayPath })
  const tree = AnchoredTree.open(real)
  // Replaced between the check and the open: the caller sees the race as a missing directory.
  if (tree === undefined) throw fsError('FS_NOT_FOUND', { path: target.displayPath })
  try {
    return await task(tree)
  } finally {
    tree.close()
  }
}

export function walkDisk(containment: Containment, target: FsTarget, options: FsWalkOptions & { sizes?: boolean }, signal?: AbortSignal): Promise<FsWalkResult> {
  // Failures in the contract's own words (`<path> does not exist`), without an operation's name.
  return mapErrors(undefined, target.displayPath, () => inTree(target, containment, (tree) => {
    return collectWalk(diskSource(tree, options.sizes ?? false, new Slicer()), options, signal)
  }), signal)
}

/** The shared collector over the disk: small files read in synchronous slices into one reused buffer, most at no promise. */
export function searchDisk(containment: Containment, target: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
  return mapErrors(undefined, target.displayPath, async () => {
    await loadLinearEngine()
    const collector = new SearchCollector(options)
    const slicer = new Slicer()
    const scratch = Buffer.allocUnsafe(SCRATCH_BYTES)
    const add = (path: string, read: Uint8Array | 'large' | undefined): boolean | Promise<boolean> => {
      if (read === 'large') collector.skipped.tooLarge++
      else if (read === undefined) collector.skipped.unreadable++
      else {
        // Matching a large file hands the loop a turn and goes on later: the next file waits.
        const matching = collector.addBytes(path, read)
        if (matching !== undefined) return matching.then(() => !collector.done)
      }
      return !collector.done
    }
    return inTree(target, containment, async (tree) => {
      const visitFile = (path: string): boolean | Promise<boolean> => {
        const location = tree.fileAt(path)
        if (location === undefined) return add(path, undefined)
        const read = readSmall(location, collector.maxFileBytes, scratch)
        if (read === 'async') return readRegular(location, collector.maxFileBytes).then((bytes) => add(path, bytes))
        return add(path, read)
      }
      const complete = await visitTree(diskSource(tree, false, slicer), options, ({ entry, matched }) => {
        if (!matched || entry.type !== 'file') return
        if (slicer.due()) return slicer.pause().then(() => visitFile(entry.path))
        return visitFile(entry.path)
      }, signal)
      return collector.result(complete)
    })
  }, signal)
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash < 0 ? '' : path.slice(0, slash)
}

/**
 * A walk that never resolves a path again: each directory is opened `O_NOFOLLOW` by name inside the
 * held one above it (`/proc/<pid>/fd/<n>/<name>`; following `/proc/self` cost 7 % of a search), each file
 * inside its held directory, so a directory swapped for a symlink mid-walk is refused, never entered.
 * `base` is the root's checked real path.
 */
export class AnchoredTree {
  readonly #held = new Map<string, number>()
  readonly #fds = CAN_ANCHOR ? `/proc/${readlinkSync('/proc/self')}/fd/` : ''

  private constructor(readonly base: string, root: number | undefined) {
    if (root !== undefined) this.#held.set('', root)
  }

  /** Holds the root directory `base`, or `undefined` if it is no longer that directory. Off Linux: a plain path. */
  static open(base: string): AnchoredTree | undefined {
    if (!CAN_ANCHOR) return new AnchoredTree(base, undefined)
    const tree = new AnchoredTree(base, openSync(base, DIR_FLAGS))
    if (readlinkSync(tree.enter('')!) === base) return tree
    tree.close()
    return undefined
  }

  #under(path: string): string {
    return path === '' ? this.base : this.base === '/' ? `/${path}` : `${this.base}/${path}`
  }

  /** Opens directory `dir` (relative, `''` = the root) inside its held parent: the path its names are read through, or `undefined`. */
  enter(dir: string): string | undefined {
    if (!CAN_ANCHOR) return this.#under(dir)
    const held = this.#held.get(dir)
    if (held !== undefined) return `${this.#fds}${held}`
    const parent = this.#held.get(parentOf(dir))
    if (parent === undefined) return undefined
    let fd: number
    try {
      fd = openSync(`${this.#fds}${parent}/${dir.slice(dir.lastIndexOf('/') + 1)}`, DIR_FLAGS)
    } catch {
      return undefined
    }
    this.#held.set(dir, fd)
    return `${this.#fds}${fd}`
  }

  leave(dir: string): void {
    const fd = dir === '' ? undefined : this.#held.get(dir)
    if (fd === undefined) return
    this.#held.delete(dir)
    closeSync(fd)
  }

  /** Where to open the file `path`: its name inside its held directory, `undefined` when that is not held. */
  fileAt(path: string): string | undefined {
    if (!CAN_ANCHOR) return this.#under(path)
    const dir = this.#held.get(parentOf(path))
    return dir === undefined ? undefined : `${this.#fds}${dir}/${path.slice(path.lastIndexOf('/') + 1)}`
  }

  close(): void {
    for (const fd of this.#held.values()) {
      try {
        closeSync(fd)
      } catch {}
    }
    this.#held.clear()
  }
}
