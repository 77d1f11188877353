import { constants, existsSync } from 'node:fs'
import { type FileHandle, mkdir, open } from 'node:fs/promises'
import type { Calls } from './calls'
import { basename, dirname, join } from 'node:path'
import { closeOnFailure, errnoCode, ifMissing } from './errors'
import type { Containment } from './identity'
import type { DiskCore } from './local-disk'
import { descriptorPath } from './open'

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY

// `/proc/self/fd/<n>` names the directory a descriptor holds, not the path it was opened by.
export const CAN_ANCHOR = process.platform === 'linux' && existsSync('/proc/self/fd')

/** A directory held open, and a path that keeps naming it whatever happens to its own path. */
export interface AnchoredDir {
  /** `/proc/self/fd/<n>`: every name below it is looked up in the opened directory itself. */
  path: string
  /** Where the directory really was when it was anchored (and found inside the root). */
  checked: string
  /** Where the directory really is now: what containment is judged on. */
  real(): Promise<string>
  sync(): Promise<void>
  close(): Promise<void>
}

/** fsync of a directory descriptor; some filesystems cannot, and the data is on disk already. */
function syncHandle(handle: FileHandle): Promise<void> {
  return handle.sync().catch((error: unknown) => {
    if (errnoCode(error) !== 'EINVAL' && errnoCode(error) !== 'EBADF') throw error
  })
}

function anchored(calls: Calls, handle: FileHandle, dir: string, checked: string, close = () => handle.close().catch(() => {})): AnchoredDir {
  return { path: `/proc/self/fd/${handle.fd}`, checked, real: () => descriptorPath(calls, handle, dir), sync: () => syncHandle(handle), close }
}

/**
 * Directories anchored for mutations stay open `HELD_IDLE_MS` (at most `HELD_MAX` idle) after their
 * last use: a burst of writes opens the directory once (12–14 % on a 4 KiB replace). A held one is
 * reused only while the kernel still names it at the same path.
 */
const HELD_MAX = 16
const HELD_IDLE_MS = 2_000

type Held = { handle: FileHandle; users: number; timer?: NodeJS.Timeout }

export class HeldDirectories {
  #held = new Map<string, Held>()

  #lease(dir: string, entry: Held, calls: Calls): AnchoredDir {
    entry.users++
    clearTimeout(entry.timer)
    let released = false
    return anchored(calls, entry.handle, dir, dir, async () => {
      if (released) return
      released = true
      if (--entry.users > 0) return
      if (this.#held.get(dir) !== entry) return void entry.handle.close().catch(() => {})
      entry.timer = setTimeout(() => this.#retire(dir, entry), HELD_IDLE_MS).unref()
    })
  }

  #retire(dir: string, entry: Held): void {
    clearTimeout(entry.timer)
    if (this.#held.get(dir) === entry) this.#held.delete(dir)
    if (entry.users === 0) void entry.handle.close().catch(() => {})
  }

  /** Keeps `handle` (the directory `dir`, found at `dir` itself) for later writes, leased; `undefined` when there is no room. */
  keep(dir: string, handle: FileHandle, calls: Calls): AnchoredDir | undefined {
    if (this.#held.has(dir)) return undefined
    if (this.#held.size >= HELD_MAX) {
      const idle = [...this.#held].find(([, entry]) => entry.users === 0)
      if (idle === undefined) return undefined
      this.#retire(...idle)
    }
    const entry: Held = { handle, users: 0 }
    this.#held.set(dir, entry)
    return this.#lease(dir, entry, calls)
  }

  /** The held directory `dir`, leased, if the kernel still names it `dir` (a deleted one reads back with ` (deleted)`). */
  async reuse(dir: string, calls: Calls): Promise<AnchoredDir | undefined> {
    const entry = this.#held.get(dir)
    if (entry === undefined) return undefined
    const now = await calls.readlink(`/proc/self/fd/${entry.handle.fd}`).catch(() => undefined)
    if (now === dir) return this.#lease(dir, entry, calls)
    this.#retire(dir, entry)
    return undefined
  }

  /** Closes every idle held directory (the process is disposed). */
  clear(): void {
    for (const [dir, entry] of this.#held) this.#retire(dir, entry)
  }
}

/** Anchors `dir` (a key's real directory) checked against the root if it exists (else, and off Linux, `undefined`); `also`, a lookup through it, runs beside the check. */
export async function anchorExisting<T>(core: DiskCore, dir: string, display: string, also: (path: string) => Promise<T>): Promise<{ anchor: AnchoredDir; also: T } | undefined> {
  if (!CAN_ANCHOR) return undefined
  const { containment, process: { calls, held } } = core
  const reused = await held.reuse(dir, calls)
  if (reused !== undefined) {
    return closeOnFailure(() => reused.close(), async () => {
      const [, result] = await Promise.all([containment.check(dir, display), also(reused.path)])
      return { anchor: reused, also: result }
    })
  }
  const handle = await open(dir, DIR_FLAGS).catch(ifMissing)
  if (handle === undefined) return undefined
  return closeOnFailure(() => handle.close(), async () => {
    const [real, result] = await Promise.all([containment.enabled ? descriptorPath(calls, handle, dir) : dir, also(`/proc/self/fd/${handle.fd}`)])
    await containment.check(real, display)
    const anchor = (real === dir ? held.keep(dir, handle, calls) : undefined) ?? anchored(calls, handle, dir, real)
    return { anchor, also: result }
  })
}

/** `handle`, the directory opened at `dir`, checked against the root where it really is (closed if that fails). */
function checkedAnchor(calls: Calls, handle: FileHandle, dir: string, containment: Containment, display: string): Promise<AnchoredDir> {
  return closeOnFailure(() => handle.close(), async () => {
    const real = containment.enabled ? await descriptorPath(calls, handle, dir) : dir
    await containment.check(real, display)
    return anchored(calls, handle, dir, real)
  })
}

/** Opens the directory a mutation publishes into, making missing ones below the one checked: a later swap for a symlink redirects no byte. */
export async function anchorDirectory(calls: Calls, dir: string, containment: Containment, display: string): Promise<AnchoredDir> {
  if (!CAN_ANCHOR) {
    await mkdir(dir, { recursive: true })
    return pathAnchor(dir, async () => dir)
  }
  const handle = await open(dir, DIR_FLAGS).catch(async (error: unknown) => {
    if (errnoCode(error) !== 'ENOENT' || dirname(dir) === dir) throw error
    // Missing: its parent is anchored (made if missing too), then it is made and opened in there.
    return descend(await anchorDirectory(calls, dirname(dir), containment, display), basename(dir))
  })
  return checkedAnchor(calls, handle, dir, containment, display)
}

/** Makes (or finds) the directory `name` inside `parent` and opens it, never through a symlink planted there; `parent` is closed. */
async function descend(parent: AnchoredDir, name: string): Promise<FileHandle> {
  const below = `${parent.path}/${name}`
  try {
    // The directory that gained an entry is made durable, so the new one survives a crash.
    await mkdir(below).then(() => parent.sync().catch(() => {}), (error: unknown) => {
      if (errnoCode(error) !== 'EEXIST') throw error
    })
    return await open(below, DIR_FLAGS | constants.O_NOFOLLOW)
  } finally {
    await parent.close()
  }
}

/** Off Linux the path itself is the best available name (the checks before publication remain). */
function pathAnchor(dir: string, real: () => Promise<string>): AnchoredDir {
  const sync = () => open(dir, DIR_FLAGS).then((handle) => syncHandle(handle).finally(() => handle.close().catch(() => {})))
  return { path: dir, checked: dir, real, sync, close: async () => {} }
}

/** Opens a listing's directory, checked before a name is read or swept (a file or FIFO: ENOTDIR, without blocking). */
export async function anchorForListing(calls: Calls, dir: string, containment: Containment, display: string): Promise<AnchoredDir> {
  if (CAN_ANCHOR) return checkedAnchor(calls, await open(dir, DIR_FLAGS), dir, containment, display)
  const real = await calls.realpath(dir)
  await containment.check(real, display)
  return pathAnchor(real, () => calls.realpath(real))
}
