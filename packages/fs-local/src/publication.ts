import { FsError, type FsVersion, fsError } from '@deepseek-ai/dsh-fs'
import { basename, dirname, join } from 'node:path'
import { type AnchoredDir, anchorDirectory } from './anchor'
import type { Calls } from './calls'
import type { DiskCore } from './local-disk'
import { errnoCode, inOrder } from './errors'
import { type Found, type Probe, statPath, versionOf } from './probe'
import { applyPrevious, checkReplaceable, type Previous } from './protect'
import { discard, makeStaged, reclaimStaging, type Staged } from './staging'
import { type StagedText, writeAll, writeEncoded } from './write-content'

/**
 * One write, a state machine run forward only: probe (`find`) → stage → lock → re-check → publish →
 * settle. `stage` writes beside the destination under its staged name (also the publication lock,
 * `staging.ts`); `re-check` reads the version under it once the bytes are durable; `publish` is the
 * one `rename` (replace) or `link` (create, never over anything); `settle` reads the new version and
 * drops the staged name. A failure before `publish` leaves the target untouched.
 */
export type PublishMode = 'create' | 'replace-at-version' | 'replace-any'

/** A version that moved between the probe and the publication point (another process wrote). */
export class LostRace extends FsError {}

/** The state after `stage`: the staged file beside its destination, not visible to anyone yet. */
export interface StagedWrite {
  /** The destination's directory; `own` when this write anchored it (closed with it). */
  anchor: AnchoredDir
  own: AnchoredDir | undefined
  name: string
  staged: Staged
  /** A file was there to replace (published by `rename`; otherwise by `link`). */
  replacing: boolean
  state: 'staged' | 'published' | 'ended'
}

/** The stage step, through the anchored parent (a directory swapped for a symlink cannot move it out of the root), while `content` is worked out. */
export async function stageWrite(core: DiskCore, found: Found, content: Promise<Uint8Array | StagedText>, display: string): Promise<StagedWrite> {
  const { probe: current, destination } = found
  content.catch(() => {})
  const { calls } = core.process
  const own = found.anchor === undefined ? await anchorDirectory(calls, dirname(destination), core.containment, display) : undefined
  const anchor = (found.anchor ?? own)!
  const name = basename(destination)
  let staged: Staged | undefined
  try {
    await sweepOnce(core, anchor)
    const old = current.kind === 'file' ? current.opened.stats : undefined
    const previous = old && checkReplaceable(calls, join(anchor.path, name), old, display)
    const making = makeStaged(calls, anchor.path, name, old === undefined ? 0o666 : Number(old.mode) & 0o700, display)
    const [made, inputs] = await Promise.allSettled([making, Promise.all([content, previous])])
    if (made.status === 'fulfilled') staged = made.value
    if (inputs.status === 'rejected') throw inputs.reason
    if (made.status === 'rejected') throw made.reason
    await fill(core, staged!, inputs.value[0], inputs.value[1], display)
    await core.process.hooks.staged?.(destination)
    return { anchor, own, name, staged: staged!, replacing: old !== undefined, state: 'staged' }
  } catch (error) {
    if (staged !== undefined) await discard(calls, staged)
    void own?.close()
    throw error
  }
}

/** Bytes first (a write without CAP_FSETID clears set-id bits), then the old file's metadata; a chmod beside the write when owners match. */
async function fill(core: DiskCore, staged: Staged, content: Uint8Array | StagedText, previous: Previous | undefined, display: string): Promise<void> {
  const { handle, created } = staged
  const written = content instanceof Uint8Array ? writeAll(handle, content) : writeEncoded(handle, content, core.process.buffers)
  if (previous === undefined) return written
  const early = created.uid === previous.uid && created.gid === previous.gid && (previous.mode & 0o6000) === 0 && (created.mode & 0o7777) !== previous.mode
  await Promise.all([written, early ? handle.chmod(previous.mode) : undefined])
  await applyPrevious(staged.file, handle, previous, display, early ? { ...created, mode: previous.mode } : created)
}

/** The lock, re-check, publish and settle steps. `settled` hears the new version as soon as it is known. */
export async function publishWrite(core: DiskCore, found: Found, write: StagedWrite, mode: PublishMode, display: string, settled?: (version: FsVersion) => void): Promise<FsVersion> {
  const { anchor, name, staged } = write
  const target = join(anchor.path, name)
  const { calls, hooks } = core.process
  // Durable while the directory's place is asked again (lookups answer first).
  const synced = staged.handle.sync().then(() => hooks.fsync?.(found.destination))
  const inside = checkBeforePublication(core, anchor, found.destination, display)
  await inOrder(inside, synced)
  if (write.replacing) {
    await hooks.locked?.(found.destination)
    await recheck(calls, found.probe, target, mode, display)
    await publishReplace(calls, staged.file, target, display)
  } else {
    // Never over anything; an unguarded write that finds a file created meanwhile starts over and replaces it.
    await linkNoReplace(calls, staged.file, target, display).catch((error: unknown) => {
      if (mode !== 'create' && FsError.is(error, 'FS_NOT_OBSERVED')) throw new LostRace('FS_STALE_VERSION', `${display} was created while it was being written`, { path: display })
      throw error
    })
  }
  write.state = 'published'
  // Told while the directory's fsync runs (the reply is built meanwhile); resolved once the new name is durable.
  const [version] = await inOrder(settle(calls, write, settled), anchor.sync())
  return version
}

/** A `link` left the staged name, whose unlink moves ctime: the version is read after it. `settled`'s failure is not the write's. */
async function settle(calls: Calls, { replacing, staged }: StagedWrite, settled?: (version: FsVersion) => void): Promise<FsVersion> {
  if (!replacing) await calls.unlink(staged.file).catch(() => {})
  const version = versionOf(await staged.handle.stat())
  try { settled?.(version) } catch {}
  return version
}

/** The cleanup of a write, published or not: the staging goes, the descriptors close (after the answer, once published). */
export async function endWrite(calls: Calls, write: StagedWrite | undefined): Promise<void> {
  if (write === undefined || write.state === 'ended') return
  const published = write.state === 'published'
  write.state = 'ended'
  const { staged, own } = write
  if (published) return void setImmediate(() => void Promise.all([staged.handle.close().catch(() => {}), own?.close()]))
  await discard(calls, staged)
  void own?.close()
}

/** The journal note and one sweep per directory per process; concurrent writes there wait for it. */
export async function sweepOnce(core: DiskCore, anchor: AnchoredDir): Promise<void> {
  const { swept, journal } = core.process
  await journal.note(anchor.checked)
  let sweep = swept.get(anchor.checked)
  if (sweep === undefined) {
    if (swept.size > 4096) swept.clear()
    sweep = reclaimStaging(anchor.path).then(() => {})
    swept.set(anchor.checked, sweep)
  }
  await sweep
}

/** Right before publication, both the anchored directory and the caller's path must still be inside the root. */
export async function checkBeforePublication(core: DiskCore, anchor: AnchoredDir, destination: string, display: string): Promise<void> {
  if (!core.containment.enabled) return
  const name = basename(destination)
  await Promise.all([
    anchor.real().then((real) => core.containment.check(join(real, name), display)),
    core.process.calls.realpath(dirname(destination)).then((real) => core.containment.check(join(real, name), display)),
  ])
}

/** The re-check, under the publication lock: content computed from what was read must not replace a file changed since. */
async function recheck(calls: Calls, found: Probe, destination: string, mode: PublishMode, display: string): Promise<void> {
  const now = await statPath(calls, destination)
  if (now !== undefined && !now.isFile()) throw fsError('FS_NOT_REGULAR_FILE', { path: display })
  if (mode === 'replace-at-version' && found.kind === 'file' && (now === undefined || versionOf(now) !== found.info.version)) {
    throw new LostRace('FS_STALE_VERSION', `${display} changed while it was being written`, { path: display })
  }
}

/** Publishes by `rename`. A file bind-mounted over the path (`/etc/hosts` in containers) fails EBUSY, and is refused rather than written in place. */
async function publishReplace(calls: Calls, file: string, destination: string, display: string): Promise<void> {
  try {
    await calls.rename(file, destination)
  } catch (error) {
    if (errnoCode(error) !== 'EBUSY') throw error
    throw fsError('FS_PERMISSION_DENIED', {
      path: display,
      reason: 'is a mount point (a file mounted over this path), so it cannot be replaced atomically; nothing was written. Change the mounted file at its source instead.',
      cause: error,
    })
  }
}

/** `link(2)`, never over anything: a file in the way is `FS_NOT_OBSERVED`, anything else `FS_NOT_REGULAR_FILE`. */
export async function linkNoReplace(calls: Calls, file: string, destination: string, display: string): Promise<void> {
  try {
    await calls.link(file, destination)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    const occupant = await calls.lstat(destination, { bigint: true }).catch((inspectError: unknown) => {
      throw fsError('FS_IO_ERROR', { cause: inspectError, path: display, reason: 'could not be created: link reported an existing entry that then vanished' })
    })
    if (occupant.isFile()) throw fsError('FS_NOT_OBSERVED', { cause: error, path: display })
    throw fsError('FS_NOT_REGULAR_FILE', { cause: error, path: display, entry: 'occupied by something else' })
  }
}
