import { FsError, fsError, type FsRemoveOutcome, type FsRenameOutcome, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { checkMoveDestination, checkRemoveGuard, publishGuarded } from '@deepseek-ai/dsh-fs/kit'
import type { BigIntStats } from 'node:fs'
import { link, unlink } from 'node:fs/promises'
import { lstat } from './calls'
import { basename, dirname, join } from 'node:path'
import { type AnchoredDir, anchorDirectory } from './anchor'
import { checkBeforePublication } from './commit'
import { checkReal, type DiskCore } from './core'
import { errnoCode, mapErrors } from './errors'
import { find, type Found } from './find'
import { statPath } from './probe'
import { acquirePublishLock } from './publish-lock'
import { versionOf } from './version'

/*
 * Guarded `remove` and `rename` on the local disk, over the same primitives as a replacing write:
 * the probe (`find`) opens the file inside its anchored directory, and the name changes under the
 * cross-process publication lock of the source, right after its version is checked there again.
 * A move is `link` then `unlink`: `link` fails on any existing destination, so nothing is ever
 * replaced; a crash between the two leaves both names on one inode, and no byte is lost.
 */

const ATTEMPTS = 5

/** A version that moved between the probe and the publication point. */
class Moved extends FsError {}

/** What a removal or a move found at its source: a regular file of the expected version, open. */
type Source = Found & { probe: Extract<Found['probe'], { kind: 'file' }> }

export function removeTarget(core: DiskCore, target: FsTarget, expected: { version: FsVersion } | undefined, signal?: AbortSignal): Promise<FsRemoveOutcome> {
  const display = target.displayPath
  return core.lock.run(target.targetKey, () => mapErrors('remove', display, () => publishGuarded({
    path: display,
    signal,
    probe: () => findSource(core, target, expected, display),
    stage: async (source) => {
      const held = await anchorOf(core, source, display)
      await core.beforePublish?.(source.destination)
      return held
    },
    publish: async (source, held) => {
      const name = join(held.anchor.path, basename(source.destination))
      const release = await acquirePublishLock(name, display)
      try {
        await checkBeforePublication(core, held.anchor, source.destination, display)
        await recheckSource(name, source, display)
        await unlink(name)
      } finally {
        await release()
      }
      await held.anchor.sync()
      return { version: source.probe.info.version }
    },
    cleanup: (source, held) => release(source, held),
    // An unguarded removal that lost a race looks again; a guarded one is stale.
    retry: (error, attempt) => error instanceof Moved && expected === undefined && attempt < ATTEMPTS,
  })))
}

export function renameTarget(
  core: DiskCore, source: FsTarget, destination: FsTarget, expected: { version: FsVersion } | undefined, signal?: AbortSignal,
): Promise<FsRenameOutcome> {
  const display = source.displayPath
  const where = destination.displayPath
  return core.lock.runAll([source.targetKey, destination.targetKey], () => mapErrors('move', display, () => publishGuarded({
    path: display,
    signal,
    probe: async () => {
      checkMoveDestination(undefined, source.targetKey === destination.targetKey, where)
      const from = await findSource(core, source, expected, display)
      try {
        const to = await find(core, destination, where)
        try {
          checkMoveDestination(to.probe.kind === 'absent' ? undefined : to.probe.info, false, where)
          // An unanchored destination was not checked against the root yet.
          if (to.anchor === undefined) await checkReal(core, destination)
          return { from, to }
        } catch (error) {
          void to.close()
          throw error
        }
      } catch (error) {
        void from.close()
        throw error
      }
    },
    stage: async ({ from, to }) => {
      const fromHeld = await anchorOf(core, from, display)
      try {
        // Missing parent directories of the destination are made here, as a write makes them.
        const toHeld = await anchorOf(core, to, where)
        await core.beforePublish?.(to.destination)
        return { fromHeld, toHeld }
      } catch (error) {
        void fromHeld.own?.close()
        throw error
      }
    },
    publish: async ({ from, to }, { fromHeld, toHeld }) => {
      const name = join(fromHeld.anchor.path, basename(from.destination))
      const target = join(toHeld.anchor.path, basename(to.destination))
      const release = await acquirePublishLock(name, display)
      try {
        await Promise.all([
          checkBeforePublication(core, fromHeld.anchor, from.destination, display),
          checkBeforePublication(core, toHeld.anchor, to.destination, where),
        ])
        await recheckSource(name, from, display)
        await linkNoReplace(name, target, where)
        await unlink(name)
      } finally {
        await release()
      }
      await Promise.all([fromHeld.anchor.sync(), toHeld.anchor.sync()])
      // The inode we moved, through the descriptor the probe opened: link and unlink moved its ctime.
      return { version: versionOf(await from.probe.opened.handle.stat({ bigint: true })) }
    },
    cleanup: async ({ from, to }, held) => {
      await release(from, held?.fromHeld)
      await release(to, held?.toHeld)
    },
    retry: (error, attempt) => error instanceof Moved && expected === undefined && attempt < ATTEMPTS,
  })))
}

/** The source of a removal or move: found, guarded like an edit, and never a read-only file. */
async function findSource(core: DiskCore, target: FsTarget, expected: { version: FsVersion } | undefined, display: string): Promise<Source> {
  const found = await find(core, target, display)
  try {
    const current = found.probe
    if (found.anchor === undefined && current.kind !== 'file') await checkReal(core, target)
    checkRemoveGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
    if (current.kind !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path: display })
    refuseReadOnly(current.opened.stats, display)
    return found as Source
  } catch (error) {
    void found.close()
    throw error
  }
}

/** A file nobody may write is one its owner said must not change: not removed, not moved (as it is not replaced). */
function refuseReadOnly(stats: BigIntStats, display: string): void {
  const mode = Number(stats.mode) & 0o7777
  if ((mode & 0o222) === 0) {
    throw fsError('FS_PERMISSION_DENIED', { path: display, reason: `is read-only (mode ${mode.toString(8).padStart(4, '0')}); nothing was changed (make it writable first, e.g. chmod u+w, if it should go)` })
  }
}

interface Held {
  anchor: AnchoredDir
  /** The anchor made here (closed with the operation), when the probe had none. */
  own: AnchoredDir | undefined
}

async function anchorOf(core: DiskCore, found: Found, display: string): Promise<Held> {
  if (found.anchor !== undefined) return { anchor: found.anchor, own: undefined }
  const own = await anchorDirectory(dirname(found.destination), core.containment, display)
  return { anchor: own, own }
}

async function release(found: Found, held: Held | undefined): Promise<void> {
  void held?.own?.close()
  setImmediate(() => void found.close())
}

/** Under the publication lock: the source must still be the file the probe saw, at its version. */
async function recheckSource(name: string, source: Source, display: string): Promise<void> {
  const now = await statPath(name)
  if (now === undefined) throw new Moved('FS_STALE_VERSION', `${display} no longer exists`, { path: display })
  if (!now.isFile()) throw fsError('FS_NOT_REGULAR_FILE', { path: display })
  if (versionOf(now) !== source.probe.info.version) throw new Moved('FS_STALE_VERSION', `${display} changed while it was being moved or removed`, { path: display })
}

/** `link(2)` refuses any existing entry: what is in the way decides the code, as for a guarded create. */
async function linkNoReplace(from: string, to: string, display: string): Promise<void> {
  try {
    await link(from, to)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    const occupant = await lstat(to, { bigint: true }).catch(() => undefined)
    if (occupant?.isFile()) throw fsError('FS_NOT_OBSERVED', { cause: error, path: display })
    throw fsError('FS_NOT_REGULAR_FILE', { cause: error, path: display, entry: 'occupied by something else' })
  }
}
