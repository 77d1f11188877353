import { closeSync, constants, existsSync, openSync, readlinkSync } from 'node:fs'

/*
 * A walk that never resolves a path again. Each directory is opened by name inside the directory
 * above it, held open (`/proc/self/fd/<n>/<name>`, an `openat` by another spelling) with
 * `O_NOFOLLOW`, so a directory of the tree swapped for a symlink to outside is refused instead of
 * entered, and each file is opened by name inside its held directory. Before this, the walk joined
 * names onto the root's path and let the kernel resolve every component afresh: a swap in the
 * middle of a walk showed outside names, and a search printed outside files' lines.
 */

const CAN_ANCHOR = process.platform === 'linux' && existsSync('/proc/self/fd')
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash < 0 ? '' : path.slice(0, slash)
}

/**
 * The directories of one walk being listed, each held by a descriptor from its frame's `list` to
 * its frame's `leave` (at most one per level of the current path). `base` is the root's checked
 * real path; `root` its descriptor.
 */
export class AnchoredTree {
  readonly #held = new Map<string, number>()

  private constructor(readonly base: string, root: number | undefined) {
    if (root !== undefined) this.#held.set('', root)
  }

  /**
   * Holds the root directory `base` (a real path already checked to be inside the root), and
   * `undefined` if it is no longer that directory. Off Linux the tree is a plain path (no anchor).
   */
  static open(base: string): AnchoredTree | undefined {
    if (!CAN_ANCHOR) return new AnchoredTree(base, undefined)
    const fd = openSync(base, DIR_FLAGS)
    if (readlinkSync(`/proc/self/fd/${fd}`) !== base) {
      closeSync(fd)
      return undefined
    }
    return new AnchoredTree(base, fd)
  }

  /** `path` (relative) below the root's real path. */
  under(path: string): string {
    if (path === '') return this.base
    return this.base === '/' ? `/${path}` : `${this.base}/${path}`
  }

  /**
   * Opens directory `dir` (relative, `''` = the root) inside its held parent, refusing a symlink,
   * and answers the path its names are read through; `undefined` when it cannot be opened (gone,
   * swapped for a symlink or a file, or its parent no longer held).
   */
  enter(dir: string): string | undefined {
    if (!CAN_ANCHOR) return this.under(dir)
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

  /** The walk is done with `dir` (its subtree listed, its files read): its descriptor is closed. */
  leave(dir: string): void {
    if (dir === '') return
    const fd = this.#held.get(dir)
    if (fd === undefined) return
    this.#held.delete(dir)
    closeSync(fd)
  }

  /**
   * Where to open the file `path` (relative): its name inside its held directory, whose lookup
   * never leaves that directory, or `undefined` when the directory is not held any more (a file
   * whose read was put off past its directory's turn; see `verified`).
   */
  fileAt(path: string): string | undefined {
    if (!CAN_ANCHOR) return this.under(path)
    const dir = this.#held.get(parentOf(path))
    return dir === undefined ? undefined : `/proc/self/fd/${dir}/${path.slice(path.lastIndexOf('/') + 1)}`
  }

  /**
   * For a file opened by its full path (`${base}/${path}`): whether the descriptor holds the file
   * at that place, judged from the kernel's own name for it. A component swapped for a symlink
   * meanwhile gives another name, and the file is not read.
   */
  holds(fd: number, path: string): boolean {
    if (!CAN_ANCHOR) return true
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === this.under(path)
    } catch {
      return false
    }
  }

  close(): void {
    for (const fd of this.#held.values()) {
      try {
        closeSync(fd)
      } catch {
        // Already closed: nothing is left to release.
      }
    }
    this.#held.clear()
  }
}
