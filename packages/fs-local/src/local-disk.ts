import {
  checkEditGuard, checkWriteGuard, decodeChunks, decodeText, EDIT_COST_PER_BYTE, editLines, FsError, KeyedLock, listingWindow,
  type MemoryBudget, planEdit, planStyledWrite, planWrite, processMemoryBudget, TEXT_COST_PER_BYTE, throwIfAborted, toListing,
  type FsDirEntry, type FsDirListing, type FsInspection, type FsInspectOptions, type FsEditOutcome, type FsEditRequest, type FsInfo, type FsListOptions,
  type FsResolveOptions, type FsStreamFromOptions, type FsTarget, type FsTargetKey, type FsVersion, type FsWriteIntent, type FsWriteOutcome,
} from '@deepseek-ai/dsh-fs'
import { readdir, realpath } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { errnoCode, mapErrors, toFsError } from './errors'
import { type AnchoredDir, anchorDirectory, anchorExisting, anchorForListing } from './anchor'
import { absolutePath, checkPathSyntax, Containment, realKey } from './identity'
import { inspectTarget, statAsGiven } from './inspect'
import { openRegular } from './open'
import { infoOfEntry, inspectStyle, lstatPath, type Probe, probe, readAll, statPath } from './probe'
import { checkReplaceable } from './protect'
import { discard, publishCreate, publishReplace, settle, stage } from './publish'
import { reclaimAfterCrashes, noteStagingDirectory } from './journal'
import { acquirePublishLock, reclaimDeadLocks } from './publish-lock'
import { isStagingName, reclaimStaging } from './staging'
import { infoOf, versionOf } from './version'
import type { BigIntStats } from 'node:fs'

/** How a staged file is published: no-replace link, or rename guarded by the probed version or not. */
type PublishMode = 'create' | 'replace-at-version' | 'replace-any'

/** A version that moved between the probe and the publication point (another process wrote). */
class LostRace extends FsError {}

const EDIT_ATTEMPTS = 5

/** The first and the largest read of a byte stream (see `streamBytesFrom`). */
const FIRST_STREAM_CHUNK = 64 * 1024
const MAX_STREAM_CHUNK = 1024 * 1024

/** What a mutation found, where it publishes, and the parent already anchored (and checked) for it. */
interface Found {
  probe: Probe
  /** The real path the new bytes are published at. */
  destination: string
  /** The destination's directory, anchored and inside the root; `undefined` when it must still be anchored (created). */
  anchor: AnchoredDir | undefined
  /** Starts closing the previous file once its bytes are read (the publication does not need it). */
  release(): void
  /** Closes everything still open; awaited at the end of the operation. */
  close(): Promise<void>
}

function found(probe: Probe, destination: string, anchor: AnchoredDir | undefined): Found {
  let closing: Promise<void> | undefined
  const release = () => {
    if (probe.kind === 'file') closing ??= probe.opened.handle.close().catch(() => {})
  }
  return {
    probe, destination, anchor, release,
    close: async () => {
      release()
      await Promise.all([closing, anchor?.close()])
    },
  }
}

/** The other names of a replaced file, which keep its old bytes (see `FsWriteOutcome.detachedLinks`). */
function detachedLinks(probe: Probe): { detachedLinks?: number } {
  const links = probe.kind === 'file' ? Number(probe.opened.stats.nlink) : 1
  return links > 1 ? { detachedLinks: links - 1 } : {}
}

export interface LocalDiskOptions {
  /** Where relative paths resolve from (absolute). */
  cwd: string
  /** Containment root: targets whose real location is outside fail `FS_OUTSIDE_ROOT`. */
  root?: string | undefined
  /** Above this size a mutation reports `before: null` instead of the old text. */
  diffMaxBytes: number
  /** Largest file read whole into a string (`readText`, `editText`); `streamText` has no bound. */
  maxTextBytes: number
  /** A fixed chunk size for `streamText`/`streamBytes`, in bytes (default: growing from 64 KiB to 1 MiB). */
  streamChunkBytes?: number
  /** What whole-file reads and edits reserve memory from. Default: the process's budget. */
  memoryBudget?: MemoryBudget
  /**
   * Instrumentation: awaited after the content is staged and before the publication point, so a
   * test can act as a competing process in exactly that window. Not part of the provider's config.
   */
  beforePublish?: (destination: string) => Promise<void>
}

/**
 * The whole local-disk provider without Cordis: every method of the `FileSystem` contract, over
 * Node's `fs`. Mutations of one target run one at a time in this process (a FIFO lock per key);
 * across processes, atomic publication and the link-based guarded create do the work.
 */
export class LocalDisk {
  readonly cwd: string
  readonly containment: Containment
  #options: LocalDiskOptions
  #lock = new KeyedLock<FsTargetKey>()
  #budget: MemoryBudget
  /** Directories already swept for dead writers' staging by this instance. */
  #swept = new Map<string, Promise<void>>()

  constructor(options: LocalDiskOptions) {
    this.#options = options
    this.#budget = options.memoryBudget ?? processMemoryBudget()
    this.cwd = absolutePath(options.cwd, process.cwd())
    this.containment = new Containment(options.root, this.cwd)
    // Once per process, in the background: what crashed processes left wherever they staged.
    void reclaimAfterCrashes().catch(() => {})
  }

  async resolve(path: string, opts: FsResolveOptions = {}): Promise<FsTarget> {
    throwIfAborted(opts.signal, path)
    checkPathSyntax(path)
    if (opts.cwd !== undefined) checkPathSyntax(opts.cwd)
    const absolute = absolutePath(path, opts.cwd === undefined ? this.cwd : absolutePath(opts.cwd, this.cwd))
    const key = await mapErrors('resolve', path, () => realKey(absolute))
    await this.containment.check(key, path)
    return { targetKey: key as FsTargetKey, displayPath: absolute }
  }

  /** `resolve`, then `stat` and the small file's text from one descriptor (see `inspect.ts`). */
  async inspect(path: string, opts: FsInspectOptions = {}): Promise<FsInspection> {
    const given = statAsGiven(path, opts.cwd, this.cwd)
    const target = await this.resolve(path, opts)
    return inspectTarget({ containment: this.containment, budget: this.#budget, maxTextBytes: this.#options.maxTextBytes }, target, opts.textUpTo, opts.signal, await given)
  }

  stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    const display = target.displayPath
    return mapErrors('stat', display, async () => {
      throwIfAborted(signal, display)
      // Two independent lookups, made together; being outside the root is the answer before any other.
      const [inside, stats] = await Promise.allSettled([this.#checkReal(target), statPath(target.targetKey)])
      if (inside.status === 'rejected') throw inside.reason
      if (stats.status === 'rejected') throw stats.reason
      return stats.value === undefined ? undefined : infoOfEntry(stats.value)
    })
  }

  readText(target: FsTarget, signal?: AbortSignal): Promise<string> {
    const display = target.displayPath
    return mapErrors('read', display, async () => {
      throwIfAborted(signal, display)
      const opened = await openRegular(target.targetKey, display)
      try {
        await this.containment.check(opened.real, display)
        const cost = TEXT_COST_PER_BYTE * Math.min(Number(opened.stats.size), this.#options.maxTextBytes)
        return await this.#budget.with(cost, `reading ${display}`, display, signal, async () => {
          const bytes = await readAll(opened, this.#options.maxTextBytes, display)
          throwIfAborted(signal, display)
          return decodeText(bytes, display).text
        })
      } finally {
        await opened.handle.close().catch(() => {})
      }
    })
  }

  streamText(target: FsTarget, signal?: AbortSignal): AsyncIterable<string> {
    return decodeChunks(this.streamBytes(target, signal), target.displayPath)
  }

  /** The raw bytes, in chunks that reuse one buffer: a chunk is valid until the next one is pulled. */
  streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    return this.streamBytesFrom(target, 0, signal === undefined ? {} : { signal })
  }

  /**
   * The raw bytes from `start` on, read at that position (nothing before it is read). The version is
   * checked on the descriptor that was opened, so the bytes streamed are those of that version.
   */
  async *streamBytesFrom(target: FsTarget, start: number, opts: FsStreamFromOptions = {}): AsyncIterable<Uint8Array> {
    const display = target.displayPath
    const { signal, version } = opts
    const fixed = this.#options.streamChunkBytes
    try {
      throwIfAborted(signal, display)
      const opened = await openRegular(target.targetKey, display)
      try {
        await this.containment.check(opened.real, display)
        if (version !== undefined && versionOf(opened.stats) !== version) {
          throw new FsError('FS_STALE_VERSION', `${display} changed since it was last read`, { path: display })
        }
        // Two buffers for the whole stream, so memory stays bounded: the next chunk is read into one
        // while the reader works on the other (which stays valid until the reader asks for more).
        // Never zero-filled: only the bytes just read are handed out. Chunks grow from 64 KiB to
        // 1 MiB: a reader that stops early reads little, a long scan makes few thread-pool trips.
        const max = fixed ?? MAX_STREAM_CHUNK
        const buffers = [Buffer.allocUnsafe(max), Buffer.allocUnsafe(max)] as const
        let size = fixed ?? FIRST_STREAM_CHUNK
        let position = start
        const readInto = (buffer: Buffer) => {
          const read = opened.handle.read(buffer, 0, size, position)
          size = Math.min(max, size * 2)
          return read
        }
        let next: ReturnType<typeof readInto> | undefined = readInto(buffers[0])
        try {
          for (let turn = 0; ; turn ^= 1) {
            const { bytesRead } = await next
            next = undefined
            throwIfAborted(signal, display)
            if (bytesRead === 0) break
            position += bytesRead
            next = readInto(buffers[turn ^ 1])
            yield buffers[turn].subarray(0, bytesRead)
          }
        } finally {
          // A read still in flight must finish before its descriptor is closed.
          await next?.catch(() => {})
        }
      } finally {
        await opened.handle.close().catch(() => {})
      }
    } catch (error) {
      throw toFsError(error, 'read', display)
    }
  }

  listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
    const display = target.displayPath
    return mapErrors('list', display, async () => {
      throwIfAborted(signal, display)
      const dir = await anchorForListing(target.targetKey, this.containment, display)
      try {
        const names = await readdir(dir.path)
        if (names.some(isStagingName)) {
          await reclaimStaging(dir.path, names)
          await reclaimDeadLocks(dir.path, names)
        }
        // Only the entries shown are looked at: a listing cut at 1,000 of 100,000 stats 1,000.
        const { shown, omitted } = listingWindow(names.filter((name) => !isStagingName(name)), opts)
        const entries: FsDirEntry[] = []
        for (const name of shown) {
          throwIfAborted(signal, display)
          const entry = await this.#entry(dir, name, join(display, name))
          if (entry) entries.push(entry)
        }
        return toListing(entries, omitted)
      } finally {
        await dir.close()
      }
    })
  }

  writeText(target: FsTarget, content: string, expected?: FsWriteIntent, signal?: AbortSignal): Promise<FsWriteOutcome> {
    const display = target.displayPath
    return this.#lock.run(target.targetKey, () => mapErrors('write', display, async () => {
      throwIfAborted(signal, display)
      const found = await this.#find(target, display)
      const { probe: current } = found
      try {
        try {
          checkWriteGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
        } catch (error) {
          // An unanchored parent was not checked yet: being outside the root is the first answer.
          if (found.anchor === undefined) await this.#checkReal(target)
          throw error
        }
        // The old text is read whole only when it is reported back (`before`, for diffs); above that
        // bound only its BOM and line-ending style are learned, from as few bytes as possible.
        let plan
        if (current.kind !== 'file') plan = planWrite(null, content, display)
        else if (current.info.size! <= this.#options.diffMaxBytes) plan = planWrite(await readAll(current.opened, this.#options.maxTextBytes, display), content, display)
        else plan = planStyledWrite(await inspectStyle(current.opened, content), content)
        found.release()
        const mode = expected === undefined ? 'replace-any' : expected.kind === 'createIfAbsent' ? 'create' : 'replace-at-version'
        const version = await this.#publish(found, plan.bytes, mode, display, signal)
        return {
          operation: current.kind === 'absent' ? 'create' : 'update',
          version,
          before: plan.before,
          after: plan.after,
          ...detachedLinks(current),
        } satisfies FsWriteOutcome
      } finally {
        await found.close()
      }
    }))
  }

  editText(target: FsTarget, edit: FsEditRequest, expected?: { version: FsVersion }, signal?: AbortSignal): Promise<FsEditOutcome> {
    return this.#lock.run(target.targetKey, async () => {
      // An unguarded edit that loses a race with another process starts over on the new content;
      // a guarded one is stale by definition.
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.#editOnce(target, edit, expected, signal)
        } catch (error) {
          if (!(error instanceof LostRace) || expected !== undefined || attempt >= EDIT_ATTEMPTS) throw error
        }
      }
    })
  }

  #editOnce(target: FsTarget, edit: FsEditRequest, expected: { version: FsVersion } | undefined, signal?: AbortSignal): Promise<FsEditOutcome> {
    const display = target.displayPath
    return mapErrors('edit', display, async () => {
      throwIfAborted(signal, display)
      const found = await this.#find(target, display)
      const { probe: current } = found
      let releaseMemory = () => {}
      try {
        // An unanchored parent was not checked yet: being outside the root is the first answer.
        if (found.anchor === undefined && current.kind !== 'file') await this.#checkReal(target)
        // The guard runs before any matching: a stale edit never reports a match error.
        checkEditGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
        if (current.kind !== 'file') throw new FsError('FS_NOT_REGULAR_FILE', `${display} is not a regular file`, { path: display })
        const { maxTextBytes } = this.#options
        // Reserved before the file is read, held until the new bytes are published.
        releaseMemory = await this.#budget.reserve(EDIT_COST_PER_BYTE * Math.min(current.info.size!, maxTextBytes), `editing ${display}`, display, signal)
        const bytes = await readAll(current.opened, maxTextBytes, display)
        found.release()
        const plan = planEdit(bytes, edit, display, maxTextBytes)
        const before = bytes.length <= this.#options.diffMaxBytes ? plan.before : null
        const outcome = { before, after: plan.after, replacements: plan.replacements, ...editLines(plan) }
        // An edit that changes no byte publishes nothing: the file and its version stay as they are.
        if (Buffer.from(plan.bytes).equals(bytes)) return { version: current.info.version, ...outcome }
        const version = await this.#publish(found, plan.bytes, 'replace-at-version', display, signal)
        return { version, ...outcome, ...detachedLinks(current) }
      } finally {
        releaseMemory()
        await found.close()
      }
    })
  }

  /**
   * What a mutation finds at its target. The parent directory is anchored first (when it exists)
   * and checked against the root, and the target is looked up inside it: a directory swapped for
   * a symlink cannot redirect the lookup, and a regular file opened there with `O_NOFOLLOW` is
   * known to be inside without asking the kernel where it is. A symlink in the target's place (the
   * key is a realpath, so it appeared since `resolve`, or it dangles) is followed by path as
   * before, and the real location of what it opened is checked before a byte is read.
   */
  async #find(target: FsTarget, display: string): Promise<Found> {
    const key = target.targetKey
    const name = basename(key)
    const anchored = await anchorExisting(dirname(key), this.containment, display, (path) => lstatPath(join(path, name)))
    if (anchored === undefined) return this.#foundByPath(key, display, undefined)
    const { anchor, also: entry } = anchored
    try {
      const destination = join(anchor.checked, name)
      if (entry === undefined) return found({ kind: 'absent' }, destination, anchor)
      if (entry.isFile()) {
        try {
          const opened = await openRegular(join(anchor.path, name), display, { checked: entry, real: destination })
          return found({ kind: 'file', info: infoOf(opened.stats), opened }, destination, anchor)
        } catch (error) {
          // Replaced between the lookup and the open (by a link, a special file, or nothing): look again by path.
          const code = errnoCode(error)
          if (code !== 'ENOENT' && code !== 'ELOOP' && code !== 'ENOTDIR' && !FsError.is(error, 'FS_NOT_REGULAR_FILE')) throw error
        }
      } else if (!entry.isSymbolicLink()) {
        return found({ kind: 'other', info: infoOfEntry(entry) }, destination, anchor)
      }
      return await this.#foundByPath(key, display, anchor)
    } catch (error) {
      await anchor.close()
      throw error
    }
  }

  /** The probe by the key's path (following a final symlink); `anchor` is kept if it holds the destination. */
  async #foundByPath(key: string, display: string, anchor: AnchoredDir | undefined): Promise<Found> {
    const current = await probe(key, display)
    let destination = key
    if (current.kind === 'file') {
      destination = current.opened.real
      try {
        // Where the bytes really are, before a single one is read.
        await this.containment.check(destination, display)
      } catch (error) {
        await current.opened.handle.close().catch(() => {})
        throw error
      }
    }
    if (anchor !== undefined && dirname(destination) !== anchor.checked) {
      await anchor.close()
      anchor = undefined
    }
    return found(current, destination, anchor)
  }

  /**
   * Stages `bytes` beside the destination and publishes them. Everything that can fail without
   * harm (abort, containment, a version that moved) is checked after staging and before the
   * publication point; once `rename`/`link` has run the write has happened and cleanup is best effort.
   */
  async #publish(found: Found, bytes: Uint8Array, mode: PublishMode, display: string, signal?: AbortSignal): Promise<FsVersion> {
    const { probe: current, destination } = found
    // Every step below goes through the anchored parent: a directory swapped for a symlink from
    // now on cannot move the staging, the lock or the published name out of the root.
    const own = found.anchor === undefined ? await anchorDirectory(dirname(destination), this.containment, display) : undefined
    const anchor = (found.anchor ?? own)!
    try {
      const anchored = join(anchor.path, basename(destination))
      // Refused here what an in-place writer would be refused; otherwise what the replacement keeps.
      const previous = current.kind === 'file' ? await checkReplaceable(anchored, current.opened.stats, display) : undefined
      await this.#sweep(anchor.path, anchor.checked)
      const staged = await stage(anchor.path, bytes, previous, display)
      try {
        await this.#options.beforePublish?.(destination)
        throwIfAborted(signal, display)
        const checked = this.#checkBeforePublication(anchor, destination, display)
        let stats: BigIntStats
        if (mode === 'create') {
          await checked
          await publishCreate(staged, anchored, display)
          ;[, stats] = await Promise.all([anchor.sync(), settle(staged, true)])
        } else {
          // Held across processes: between another provider's re-check and its rename, ours must
          // not run. Taken while the containment checks run; given back if they fail.
          const [lock, check] = await Promise.allSettled([acquirePublishLock(anchored, display, staged.staging.live?.path), checked])
          if (check.status === 'rejected') {
            if (lock.status === 'fulfilled') await lock.value()
            throw check.reason
          }
          if (lock.status === 'rejected') throw lock.reason
          const release = lock.value
          try {
            await this.#recheck(current, anchored, mode, display)
            await publishReplace(staged, anchored, display)
          } catch (error) {
            await release()
            throw error
          }
          const released = release()
          ;[, , stats] = await Promise.all([released, anchor.sync(), settle(staged, false, released)])
        }
        return versionOf(stats)
      } finally {
        await discard(staged)
      }
    } finally {
      await own?.close()
    }
  }

  /**
   * Right before publication: the bytes land in the anchored directory, which must still be inside
   * the root; and the caller's path must still lead inside too (a directory swapped for a link
   * fails here). Two independent lookups, made together.
   */
  async #checkBeforePublication(anchor: AnchoredDir, destination: string, display: string): Promise<void> {
    if (!this.containment.enabled) return
    const name = basename(destination)
    await Promise.all([
      anchor.real().then((real) => this.containment.check(join(real, name), display)),
      realpath(dirname(destination)).then((real) => this.containment.check(join(real, name), display)),
    ])
  }

  /**
   * The last look before a replacing rename, under the cross-process publication lock so no other
   * provider can rename in between. Content computed from what was read (a guarded write, any edit)
   * must not replace a file another process changed since the probe: that write would be lost.
   * An unguarded write replaces whatever regular file is there.
   */
  async #recheck(found: Probe, destination: string, mode: PublishMode, display: string): Promise<void> {
    const now = await statPath(destination)
    if (now !== undefined && !now.isFile()) {
      throw new FsError('FS_NOT_REGULAR_FILE', `${display} is not a regular file`, { path: display })
    }
    if (mode === 'replace-at-version' && found.kind === 'file' && (now === undefined || versionOf(now) !== found.info.version)) {
      throw new LostRace('FS_STALE_VERSION', `${display} changed while it was being written`, { path: display })
    }
  }

  /** Re-checks containment of a target's key, for targets not minted by this instance's `resolve`. */
  async #checkReal(target: FsTarget): Promise<void> {
    if (!this.containment.enabled) return
    const real = await realKey(target.targetKey)
    await this.containment.check(real, target.displayPath)
  }

  /**
   * One entry of an anchored directory. Anything but a symlink is what `lstat` says, keyed below the
   * directory's checked real path; a symlink is followed only if it leads inside the root.
   */
  async #entry(dir: AnchoredDir, name: string, display: string): Promise<FsDirEntry | undefined> {
    const path = join(dir.path, name)
    const own = await lstatPath(path)
    if (own === undefined) return undefined // removed since readdir
    let key = join(dir.checked, name)
    let stats = own
    if (own.isSymbolicLink()) {
      try {
        stats = (await statPath(path)) ?? own
        key = await realKey(path)
        await this.containment.check(key, display)
      } catch {
        // A link leading outside the root is listed as what it is, never followed.
        return { name, type: 'other', target: { targetKey: join(dir.checked, name) as FsTargetKey, displayPath: display } }
      }
    }
    const info = infoOfEntry(stats)
    const entry: FsDirEntry = { name, type: info.type, target: { targetKey: key as FsTargetKey, displayPath: display }, version: info.version }
    if (info.size !== undefined) entry.size = info.size
    return entry
  }

  /** `dir` is where to look (possibly an anchored path); `key` the directory's real path, swept once. */
  async #sweep(dir: string, key: string): Promise<void> {
    await noteStagingDirectory(key)
    // Concurrent mutations in one directory wait for the one sweep: none publishes before it ended.
    let sweep = this.#swept.get(key)
    if (sweep === undefined) {
      if (this.#swept.size > 4096) this.#swept.clear()
      sweep = (async () => {
        const names = await readdir(dir).catch(() => [] as string[])
        if (!names.some(isStagingName)) return
        await reclaimStaging(dir, names)
        await reclaimDeadLocks(dir, names)
      })().catch(() => {})
      this.#swept.set(key, sweep)
    }
    await sweep
  }

}
