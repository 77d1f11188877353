import { fsError, type FsRemoveOptions, type FsRemoveOutcome, type FsRenameOptions, type FsRenameOutcome, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { checkMoveDestination, checkRemoveGuard, publishGuarded } from '@deepseek-ai/dsh-fs/kit'
import { unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { type AnchoredDir, anchorDirectory } from './anchor'
import type { Calls } from './calls'
import { checkReal } from './identity'
import type { DiskCore } from './local-disk'
import { closeOnFailure, mapErrors } from './errors'
import { find, type Found, statPath, versionOf } from './probe'
import { closeSoon, refuseStagingName, retryUnguarded } from './mutate'
import { refuseReadOnly } from './protect'
import { checkBeforePublication, linkNoReplace, LostRace, sweepOnce } from './publication'
import { discard, makeStaged, type Staged } from './staging'

/*
 * Guarded `remove` and `rename` on a write's primitives: probe, the source's publication lock (its
 * staged name, empty), the version checked again under it, the name changed. A move is `link` (never
 * over anything) then `unlink`: a crash between leaves two names on one inode.
 */

/** What a removal or a move found at its source: a regular file of the expected version, open. */
type Source = Found & { probe: Extract<Found['probe'], { kind: 'file' }> }

/** The source's directory, anchored, and its publication lock, held. */
interface Locked {
  held: Held
  lock: Staged
}

export function removeTarget(core: DiskCore, target: FsTarget, { expected, signal }: FsRemoveOptions): Promise<FsRemoveOutcome> {
  const display = target.displayPath
  return core.lock.run(target.targetKey, () => mapErrors('remove', display, () => publishGuarded({
    path: display,
    signal,
    probe: () => findSource(core, target, expected, display),
    stage: (source) => lockSource(core, source, display),
    publish: async (source, { held }) => {
      const name = join(held.anchor.path, basename(source.destination))
      await checkBeforePublication(core, held.anchor, source.destination, display)
      await core.process.hooks.locked?.(source.destination)
      await recheckSource(core.process.calls, name, source, display)
      await unlink(name)
      await held.anchor.sync()
      return { version: source.probe.info.version }
    },
    cleanup: async (source, locked) => {
      if (locked !== undefined) await discard(locked.lock)
      release(source, locked?.held)
    },
    retry: retryUnguarded(expected),
  })))
}

export function renameTarget(core: DiskCore, source: FsTarget, destination: FsTarget, { expected, signal }: FsRenameOptions): Promise<FsRenameOutcome> {
  const display = source.displayPath
  const where = destination.displayPath
  return core.lock.runAll([source.targetKey, destination.targetKey], () => mapErrors('move', display, () => publishGuarded({
    path: display,
    signal,
    probe: () => probeMove(core, source, destination, expected),
    stage: async ({ from, to }) => {
      // Missing parent directories of the destination are made here, as a write makes them.
      const toHeld = await anchorOf(core, to, where)
      return closeOnFailure(() => toHeld.own?.close(), async () => ({ toHeld, ...(await lockSource(core, from, display)) }))
    },
    publish: ({ from, to }, held) => publishMove(core, from, to, held, display, where),
    cleanup: async ({ from, to }, staged) => {
      if (staged !== undefined) await discard(staged.lock)
      release(from, staged?.held)
      release(to, staged?.toHeld)
    },
    retry: retryUnguarded(expected),
  })))
}

/** Both names checked inside the root, the source's version again under its lock, then `link` (never over anything) and `unlink`. */
async function publishMove(core: DiskCore, from: Source, to: Found, { held, toHeld }: Locked & { toHeld: Held }, display: string, where: string): Promise<FsRenameOutcome> {
  const name = join(held.anchor.path, basename(from.destination))
  await Promise.all([checkBeforePublication(core, held.anchor, from.destination, display), checkBeforePublication(core, toHeld.anchor, to.destination, where)])
  await core.process.hooks.locked?.(from.destination)
  const { calls } = core.process
  await recheckSource(calls, name, from, display)
  await linkNoReplace(calls, name, join(toHeld.anchor.path, basename(to.destination)), where)
  await unlink(name)
  await Promise.all([held.anchor.sync(), toHeld.anchor.sync()])
  // Through the descriptor the probe opened: link and unlink moved the inode's ctime.
  return { version: versionOf(await from.probe.opened.handle.stat({ bigint: true })) }
}

async function probeMove(core: DiskCore, source: FsTarget, destination: FsTarget, expected: { version: FsVersion } | undefined): Promise<{ from: Source; to: Found }> {
  const where = destination.displayPath
  checkMoveDestination(undefined, source.targetKey === destination.targetKey, where)
  refuseStagingName(destination)
  const from = await findSource(core, source, expected, source.displayPath)
  return closeOnFailure(() => from.close(), async () => {
    const to = await find(core, destination, where)
    return closeOnFailure(() => to.close(), async () => {
      checkMoveDestination(to.probe.kind === 'absent' ? undefined : to.probe.info, false, where)
      // An unanchored destination was not checked against the root yet.
      if (to.anchor === undefined) await checkReal(core, destination)
      return { from, to }
    })
  })
}

/** The source of a removal or move: found, guarded like an edit, and never a read-only file. */
async function findSource(core: DiskCore, target: FsTarget, expected: { version: FsVersion } | undefined, display: string): Promise<Source> {
  refuseStagingName(target)
  const found = await find(core, target, display)
  return closeOnFailure(() => found.close(), async () => {
    const current = found.probe
    if (found.anchor === undefined && current.kind !== 'file') await checkReal(core, target)
    checkRemoveGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
    if (current.kind !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path: display })
    refuseReadOnly(current.opened.stats, display, 'changed')
    return found as Source
  })
}

/** The stage step of a removal or move: the source's directory anchored, noted and swept as for a write, and the source's publication lock taken. */
async function lockSource(core: DiskCore, source: Source, display: string): Promise<Locked> {
  const held = await anchorOf(core, source, display)
  return closeOnFailure(() => held.own?.close(), async () => {
    await sweepOnce(core, held.anchor)
    const lock = await makeStaged(core.process.calls, held.anchor.path, basename(source.destination), 0o600, display)
    await closeOnFailure(() => discard(lock), async () => core.process.hooks.staged?.(source.destination))
    return { held, lock }
  })
}

interface Held {
  anchor: AnchoredDir
  /** The anchor made here (closed with the operation), when the probe had none. */
  own: AnchoredDir | undefined
}

async function anchorOf(core: DiskCore, found: Found, display: string): Promise<Held> {
  if (found.anchor !== undefined) return { anchor: found.anchor, own: undefined }
  const own = await anchorDirectory(core.process.calls, dirname(found.destination), core.containment, display)
  return { anchor: own, own }
}

function release(found: Found, held: Held | undefined): void {
  void held?.own?.close()
  closeSoon(found)
}

/** Under the publication lock: the source must still be the file the probe saw, at its version. */
async function recheckSource(calls: Calls, name: string, source: Source, display: string): Promise<void> {
  const now = await statPath(calls, name)
  if (now === undefined) throw new LostRace('FS_STALE_VERSION', `${display} no longer exists`, { path: display })
  if (!now.isFile()) throw fsError('FS_NOT_REGULAR_FILE', { path: display })
  if (versionOf(now) !== source.probe.info.version) throw new LostRace('FS_STALE_VERSION', `${display} changed while it was being moved or removed`, { path: display })
}
