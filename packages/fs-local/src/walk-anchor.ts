import { closeSync, constants, openSync, readlinkSync } from 'node:fs'
import { CAN_ANCHOR } from './anchor'

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash < 0 ? '' : path.slice(0, slash)
}

/**
 * A walk that never resolves a path again: each directory is opened by name inside the one above
 * it (`/proc/self/fd/<n>/<name>`, an `openat` by another spelling) with `O_NOFOLLOW`, and held from
 * its frame's `list` to its `leave`; each file is opened by name inside its held directory. A
 * directory swapped for a symlink to outside mid-walk is refused instead of entered (when names
 * were joined onto the root's path, such a swap showed outside names and lines). `base` is the
 * root's checked real path.
 */
export class AnchoredTree {
  readonly #held = new Map<string, number>()

  private constructor(readonly base: string, root: number | undefined) {
    if (root !== undefined) this.#held.set('', root)
  }

  /** Holds the root directory `base`, or `undefined` if it is no longer that directory. Off Linux: a plain path. */
  static open(base: string): AnchoredTree | undefined {
    if (!CAN_ANCHOR) return new AnchoredTree(base, undefined)
    const fd = openSync(base, DIR_FLAGS)
    if (readlinkSync(`/proc/self/fd/${fd}`) !== base) {
      closeSync(fd)
      return undefined
    }
    return new AnchoredTree(base, fd)
  }

  #under(path: string): string {
    if (path === '') return this.base
    return this.base === '/' ? `/${path}` : `${this.base}/${path}`
  }

  /** Opens directory `dir` (relative, `''` = the root) inside its held parent: the path its names are read through, or `undefined`. */
  enter(dir: string): string | undefined {
    if (!CAN_ANCHOR) return this.#under(dir)
    const held = this.#held.get(dir)
    if (held !== undefined) return `/proc/self/fd/${held}`
    const parent = this.#held.get(parentOf(dir))
    if (parent === undefined) return undefined
    let fd: number
    try {
      fd = openSync(`/proc/self/fd/${parent}/${dir.slice(dir.lastIndexOf('/') + 1)}`, DIR_FLAGS)
    } catch {
      return undefined
    }
    this.#held.set(dir, fd)
    return `/proc/self/fd/${fd}`
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
    return dir === undefined ? undefined : `/proc/self/fd/${dir}/${path.slice(path.lastIndexOf('/') + 1)}`
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
