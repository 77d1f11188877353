import { FsError, type FsVersion, fsError } from '@deepseek-ai/dsh-fs'
import type { BigIntStats } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { realpath } from './calls'
import { basename, dirname, join } from 'node:path'
import { type AnchoredDir, anchorDirectory } from './anchor'
import type { DiskCore } from './core'
import type { Found } from './find'
import { noteStagingDirectory } from './journal'
import { type Probe, statPath } from './probe'
import { checkReplaceable } from './protect'
import { discard, lockSocketOf, publishCreate, publishReplace, settle, stage, type StagedText, unnameSocket } from './publish'
import { acquirePublishLock, reclaimDeadLocks } from './publish-lock'
import { isStagingName, reclaimStaging } from './staging'
import { versionOf } from './version'

/** How a staged file is published: no-replace link, or rename guarded by the probed version or not. */
export type PublishMode = 'create' | 'replace-at-version' | 'replace-any'

/** A version that moved between the probe and the publication point (another process wrote). */
export class LostRace extends FsError {}

/** What `stageCommit` made: the staged file beside the destination, and where it will be published. */
export interface StagedCommit {
  /** The destination's directory, anchored. */
  anchor: AnchoredDir
  /** The anchor this commit made itself (closed with the commit), when the probe had none. */
  own: AnchoredDir | undefined
  /** The destination's name inside the anchor. */
  anchored: string
  staged: Awaited<ReturnType<typeof stage>>
}

/**
 * Stages `content` beside the destination (the stage step of `publishGuarded`). Every step goes
 * through the anchored parent: a directory swapped for a symlink from now on cannot move the
 * staging, the lock or the published name out of the root. Nothing is visible to anyone yet.
 */
export async function stageCommit(core: DiskCore, found: Found, content: Promise<Uint8Array | StagedText>, display: string): Promise<StagedCommit> {
  const { probe: current, destination } = found
  // A failure before `content` is awaited must not leave its rejection unhandled.
  content.catch(() => {})
  const own = found.anchor === undefined ? await anchorDirectory(dirname(destination), core.containment, display) : undefined
  const anchor = (found.anchor ?? own)!
  let staged: StagedCommit['staged'] | undefined
  try {
    const anchored = join(anchor.path, basename(destination))
    await sweep(core, anchor.path, anchor.checked)
    // Refused what an in-place writer would be refused; otherwise what the replacement keeps.
    // Worked out, like the content, while the staging is made; nothing is published before both.
    const previous = current.kind === 'file' ? checkReplaceable(anchored, current.opened.stats, display) : undefined
    const replacing = current.kind === 'file' ? Number(current.opened.stats.mode) & 0o7777 : undefined
    staged = await stage(anchor.path, Promise.all([content, previous]).then(([bytes, kept]) => ({ content: bytes, previous: kept })), display, replacing)
    await core.beforePublish?.(destination)
    return { anchor, own, anchored, staged }
  } catch (error) {
    if (staged !== undefined) await discard(staged)
    void own?.close()
    throw error
  }
}

/**
 * Publishes what `stageCommit` made (the publish step of `publishGuarded`). Everything that can fail
 * without harm (containment, a version that moved) is checked right before the publication point;
 * once `rename`/`link` has run the write has happened and what follows is best effort. `settled`
 * hears the new version as soon as it is known, while the directory may still be syncing.
 */
export async function publishCommit(core: DiskCore, found: Found, made: StagedCommit, mode: PublishMode, display: string, settled?: (version: FsVersion) => void): Promise<FsVersion> {
  const { probe: current, destination } = found
  const { anchor, anchored, staged } = made
  let stats: BigIntStats
  if (mode === 'create') {
    // Where the directory is, asked while the bytes are made durable (lookups only: on a local disk
    // they answer before the fsync does). Nothing is linked before both.
    const [synced, inside] = await Promise.allSettled([staged.handle.sync(), checkBeforePublication(core, anchor, destination, display)])
    if (inside.status === 'rejected') throw inside.reason
    if (synced.status === 'rejected') throw synced.reason
    await Promise.all([publishCreate(staged, anchored, display), unnameSocket(staged)])
    ;[, stats] = await Promise.all([anchor.sync(), settle(staged, true, undefined, (stats) => tell(settled, stats))])
  } else {
    // Held across processes: between another provider's re-check and its rename, ours must
    // not run. Taken while the staged bytes are made durable, and where the directory is now is
    // asked meanwhile (nothing is renamed before all three).
    const [lock, synced, inside] = await Promise.allSettled([
      acquirePublishLock(anchored, display, lockSocketOf(staged)),
      staged.handle.sync(),
      checkBeforePublication(core, anchor, destination, display),
    ])
    if (lock.status === 'rejected') throw inside.status === 'rejected' ? inside.reason : synced.status === 'rejected' ? synced.reason : lock.reason
    const release = lock.value
    try {
      if (inside.status === 'rejected') throw inside.reason
      if (synced.status === 'rejected') throw synced.reason
      // Right before the rename, under the lock: the version another process may have moved.
      await recheck(current, anchored, mode, display)
      await Promise.all([publishReplace(staged, anchored, display), unnameSocket(staged)])
    } catch (error) {
      await release()
      throw error
    }
    const released = release()
    ;[, , stats] = await Promise.all([released, anchor.sync(), settle(staged, false, released, (stats) => tell(settled, stats))])
  }
  return versionOf(stats)
}

/** Passes the published version on to `settled`, whose failure is not the write's. */
function tell(settled: ((version: FsVersion) => void) | undefined, stats: BigIntStats): void {
  try {
    settled?.(versionOf(stats))
  } catch {}
}

/** The cleanup of a commit, published or not: the staging goes, and an anchor the commit made is closed. */
export async function endCommit(made: StagedCommit | undefined): Promise<void> {
  if (made === undefined) return
  const { staged, own } = made
  if (staged.settled) {
    // Published: only descriptors are left, closed after the answer is on its way.
    setImmediate(() => void Promise.all([discard(staged), own?.close()]))
    return
  }
  await discard(staged)
  void own?.close()
}

/**
 * Right before publication: the bytes land in the anchored directory, which must still be inside
 * the root; and the caller's path must still lead inside too (a directory swapped for a link
 * fails here). Two independent lookups, made together.
 */
export async function checkBeforePublication(core: DiskCore, anchor: AnchoredDir, destination: string, display: string): Promise<void> {
  if (!core.containment.enabled) return
  const name = basename(destination)
  await Promise.all([
    anchor.real().then((real) => core.containment.check(join(real, name), display)),
    realpath(dirname(destination)).then((real) => core.containment.check(join(real, name), display)),
  ])
}

/**
 * The last look before a replacing rename, under the cross-process publication lock so no other
 * provider can rename in between. Content computed from what was read (a guarded write, any edit)
 * must not replace a file another process changed since the probe: that write would be lost.
 * An unguarded write replaces whatever regular file is there.
 */
async function recheck(found: Probe, destination: string, mode: PublishMode, display: string): Promise<void> {
  const now = await statPath(destination)
  if (now !== undefined && !now.isFile()) {
    throw fsError('FS_NOT_REGULAR_FILE', { path: display })
  }
  if (mode === 'replace-at-version' && found.kind === 'file' && (now === undefined || versionOf(now) !== found.info.version)) {
    throw new LostRace('FS_STALE_VERSION', `${display} changed while it was being written`, { path: display })
  }
}

/** `dir` is where to look (possibly an anchored path); `key` the directory's real path, swept once. */
async function sweep(core: DiskCore, dir: string, key: string): Promise<void> {
  await noteStagingDirectory(key)
  // Concurrent mutations in one directory wait for the one sweep: none publishes before it ended.
  let swept = core.swept.get(key)
  if (swept === undefined) {
    if (core.swept.size > 4096) core.swept.clear()
    swept = (async () => {
      const names = await readdir(dir).catch(() => [] as string[])
      if (!names.some(isStagingName)) return
      await reclaimStaging(dir, names)
      await reclaimDeadLocks(dir, names)
    })().catch(() => {})
    core.swept.set(key, swept)
  }
  await swept
}
