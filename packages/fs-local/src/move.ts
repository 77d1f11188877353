import { fsError, type FsRemoveOptions, type FsRemoveOutcome, type FsRenameOptions, type FsRenameOutcome, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { checkMoveDestination, checkRemoveGuard, publishGuarded } from '@deepseek-ai/dsh-fs/kit'
import { basename, dirname, join } from 'node:path'
import { type AnchoredDir, anchorDirectory } from './anchor'
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

export function removeTarget(core: DiskCore, target: FsTarget, { expected, signal }: FsRemoveOptions): Promise<FsRemoveOutcome> {
  const display = target.displayPath
  return core.lock.run(target.targetKey, () => mapErrors('remove', display, () => publishGuarded({
    path: display,
    signal,
    probe: () => findSource(core, target, expected, display),
    stage: (source) => lockSource(core, source, display),
    publish: async (source, { anchor }) => {
      await checkBeforePublication(core, anchor, source.destination, display)
      await core.process.calls.unlink(await recheckSource(core, source, anchor, display))
      await anchor.sync()
      return { version: source.probe.info.version }
    },
    cleanup: async (source, locked) => {
      if (locked !== undefined) await discard(core.process.calls, locked.lock)
      release(source, locked?.anchor)
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
      const toAnchor = await anchorOf(core, to, where)
      return closeOnFailure(() => closeOwn(to, toAnchor), async () => ({ toAnchor, ...(await lockSource(core, from, display)) }))
    },
    publish: ({ from, to }, locked) => publishMove(core, from, to, locked, display, where),
    cleanup: async ({ from, to }, staged) => {
      if (staged !== undefined) await discard(core.process.calls, staged.lock)
      release(from, staged?.anchor)
      release(to, staged?.toAnchor)
    },
    retry: retryUnguarded(expected),
  })))
}

/** Both names checked inside the root, the source's version again under its lock, then `link` (never over anything) and `unlink`. */
async function publishMove(core: DiskCore, from: Source, to: Found, { anchor, toAnchor }: Record<'anchor' | 'toAnchor', AnchoredDir>, display: string, where: string): Promise<FsRenameOutcome> {
  await Promise.all([checkBeforePublication(core, anchor, from.destination, display), checkBeforePublication(core, toAnchor, to.destination, where)])
  const name = await recheckSource(core, from, anchor, display)
  await linkNoReplace(core.process.calls, name, join(toAnchor.path, basename(to.destination)), where)
  await core.process.calls.unlink(name)
  await Promise.all([anchor.sync(), toAnchor.sync()])
  // Through the descriptor the probe opened: link and unlink moved the inode's ctime.
  return { version: versionOf(await from.probe.opened.handle.stat()) }
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
async function lockSource(core: DiskCore, source: Source, display: string): Promise<{ anchor: AnchoredDir; lock: Staged }> {
  const anchor = await anchorOf(core, source, display)
  return closeOnFailure(() => closeOwn(source, anchor), async () => {
    await sweepOnce(core, anchor)
    const lock = await makeStaged(core.process.calls, anchor.path, basename(source.destination), 0o600, display)
    await closeOnFailure(() => discard(core.process.calls, lock), async () => core.process.hooks.staged?.(source.destination))
    return { anchor, lock }
  })
}

/** The directory `found` is published in: the probe's anchor, or one made here (closed with the operation). */
async function anchorOf(core: DiskCore, found: Found, display: string): Promise<AnchoredDir> {
  return found.anchor ?? anchorDirectory(core.process.calls, dirname(found.destination), core.containment, display)
}

/** Closes `anchor` if it was made here rather than by the probe. */
function closeOwn(found: Found, anchor: AnchoredDir | undefined): Promise<void> | undefined {
  return anchor === found.anchor ? undefined : anchor?.close()
}

function release(found: Found, anchor: AnchoredDir | undefined): void {
  void closeOwn(found, anchor)
  closeSoon(found)
}

/** Under the publication lock: the source must still be the file the probe saw, at its version. Answers its name in `anchor`. */
async function recheckSource(core: DiskCore, source: Source, anchor: AnchoredDir, display: string): Promise<string> {
  await core.process.hooks.locked?.(source.destination)
  const name = join(anchor.path, basename(source.destination))
  const now = await statPath(core.process.calls, name)
  if (now === undefined) throw new LostRace('FS_STALE_VERSION', `${display} no longer exists`, { path: display })
  if (!now.isFile()) throw fsError('FS_NOT_REGULAR_FILE', { path: display })
  if (versionOf(now) !== source.probe.info.version) throw new LostRace('FS_STALE_VERSION', `${display} changed while it was being moved or removed`, { path: display })
  return name
}
