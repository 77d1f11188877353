import { constants, existsSync } from 'node:fs'
import { type FileHandle, mkdir, open } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { errnoCode } from './errors'
import type { Containment } from './identity'
import { descriptorPath } from './open'

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY

// `/proc/self/fd/<n>` names the directory a descriptor holds, not the path it was opened by.
const CAN_ANCHOR = process.platform === 'linux' && existsSync('/proc/self/fd')

/** A directory held open, and a path that keeps naming it whatever happens to its own path. */
export interface AnchoredDir {
  /** `/proc/self/fd/<n>`: every name below it is looked up in the opened directory itself. */
  path: string
  /** Where the directory really is: what containment is judged on. */
  real(): Promise<string>
  close(): Promise<void>
}

/**
 * Opens the directory a mutation publishes into, creating missing directories one at a time below
 * the one already opened and checked. Everything a publication does afterwards (staging, the
 * publication lock, rename or link) goes through the anchored path, so a directory of the path
 * swapped for a symlink after the containment check cannot redirect a single byte: without the
 * anchor, `mkdir -p` and the staging file followed such a link out of the root.
 */
export async function anchorDirectory(dir: string, containment: Containment, display: string): Promise<AnchoredDir> {
  if (!CAN_ANCHOR) {
    // Elsewhere the path itself is the best available name (the check before publication remains).
    await mkdir(dir, { recursive: true })
    return { path: dir, real: async () => dir, close: async () => {} }
  }
  const missing: string[] = []
  let current = dir
  let handle: FileHandle
  for (;;) {
    try {
      handle = await open(current, DIR_FLAGS)
      break
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' || dirname(current) === current) throw error
      missing.unshift(basename(current))
      current = dirname(current)
    }
  }
  try {
    await containment.check(await descriptorPath(handle, current), display)
    for (const name of missing) {
      const below = `/proc/self/fd/${handle.fd}/${name}`
      let created = false
      try {
        await mkdir(below)
        created = true
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw error
      }
      // fsync of the directory that gained an entry, so the new directory survives a crash.
      if (created) await handle.sync().catch(() => {})
      // O_NOFOLLOW: a symlink planted where we just made (or found) a directory is refused.
      const child = await open(below, DIR_FLAGS | constants.O_NOFOLLOW)
      await handle.close().catch(() => {})
      handle = child
      await containment.check(await descriptorPath(handle, below), display)
    }
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
  const held = handle
  return {
    path: `/proc/self/fd/${held.fd}`,
    real: () => descriptorPath(held, dir),
    close: () => held.close().catch(() => {}),
  }
}
