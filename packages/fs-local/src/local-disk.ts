import {
  checkEditGuard, checkWriteGuard, decodeText, FsError, KeyedLock, planEdit, planWrite, throwIfAborted, Utf8StreamDecoder,
  type FsDirEntry, type FsEditOutcome, type FsEditRequest, type FsInfo, type FsResolveOptions, type FsTarget,
  type FsTargetKey, type FsVersion, type FsWriteIntent, type FsWriteOutcome,
} from '@deepseek-ai/dsh-fs'
import { readdir, realpath } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { mapErrors, toFsError } from './errors'
import { anchorDirectory } from './anchor'
import { absolutePath, checkPathSyntax, Containment, realKey } from './identity'
import { openRegular } from './open'
import { infoOfEntry, type Probe, probe, readAll, statPath } from './probe'
import { discard, previousOf, publishCreate, publishReplace, settle, stage } from './publish'
import { reclaimDeadLocks, withPublishLock } from './publish-lock'
import { isStagingName, reclaimStaging } from './staging'
import { versionOf } from './version'

/** How a staged file is published: no-replace link, or rename guarded by the probed version or not. */
type PublishMode = 'create' | 'replace-at-version' | 'replace-any'

/** A version that moved between the probe and the publication point (another process wrote). */
class LostRace extends FsError {}

const EDIT_ATTEMPTS = 5

export interface LocalDiskOptions {
  /** Where relative paths resolve from (absolute). */
  cwd: string
  /** Containment root: targets whose real location is outside fail `FS_OUTSIDE_ROOT`. */
  root?: string | undefined
  /** Above this size a mutation reports `before: null` instead of the old text. */
  diffMaxBytes: number
  /** Largest file read whole into a string (`readText`, `editText`); `streamText` has no bound. */
  maxTextBytes: number
  /** Chunk size of `streamText`, in bytes. */
  streamChunkBytes?: number
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
  /** Directories already swept for dead writers' staging by this instance. */
  #swept = new Set<string>()

  constructor(options: LocalDiskOptions) {
    this.#options = options
    this.cwd = absolutePath(options.cwd, process.cwd())
    this.containment = new Containment(options.root, this.cwd)
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

  stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    const display = target.displayPath
    return mapErrors('stat', display, async () => {
      throwIfAborted(signal, display)
      await this.#checkReal(target)
      const stats = await statPath(target.targetKey)
      return stats === undefined ? undefined : infoOfEntry(stats)
    })
  }

  readText(target: FsTarget, signal?: AbortSignal): Promise<string> {
    const display = target.displayPath
    return mapErrors('read', display, async () => {
      throwIfAborted(signal, display)
      const opened = await openRegular(target.targetKey, display)
      try {
        await this.containment.check(opened.real, display)
        const bytes = await readAll(opened, this.#options.maxTextBytes, display)
        throwIfAborted(signal, display)
        return decodeText(bytes, display).text
      } finally {
        await opened.handle.close().catch(() => {})
      }
    })
  }

  async *streamText(target: FsTarget, signal?: AbortSignal): AsyncIterable<string> {
    const decoder = new Utf8StreamDecoder(target.displayPath)
    for await (const bytes of this.streamBytes(target, signal)) {
      const text = decoder.push(bytes)
      if (text) yield text
    }
    const rest = decoder.end()
    if (rest) yield rest
  }

  /** The raw bytes, in chunks that reuse one buffer: a chunk is valid until the next one is pulled. */
  async *streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    const display = target.displayPath
    const chunkBytes = this.#options.streamChunkBytes ?? 256 * 1024
    try {
      throwIfAborted(signal, display)
      const opened = await openRegular(target.targetKey, display)
      try {
        await this.containment.check(opened.real, display)
        // One buffer for the whole stream: memory stays bounded by the chunk size.
        const buffer = new Uint8Array(chunkBytes)
        for (;;) {
          throwIfAborted(signal, display)
          const { bytesRead } = await opened.handle.read(buffer, 0, chunkBytes, null)
          if (bytesRead === 0) break
          yield buffer.subarray(0, bytesRead)
        }
      } finally {
        await opened.handle.close().catch(() => {})
      }
    } catch (error) {
      throw toFsError(error, 'read', display)
    }
  }

  listDir(target: FsTarget, signal?: AbortSignal): Promise<FsDirEntry[]> {
    const display = target.displayPath
    return mapErrors('list', display, async () => {
      throwIfAborted(signal, display)
      const dir = await realpath(target.targetKey)
      await this.containment.check(dir, display)
      // readdir opens with O_DIRECTORY: a FIFO in the way fails ENOTDIR instead of blocking.
      const names = (await readdir(dir)).sort()
      if (names.some(isStagingName)) {
        await reclaimStaging(dir)
        await reclaimDeadLocks(dir)
      }
      const entries: FsDirEntry[] = []
      for (const name of names) {
        if (isStagingName(name)) continue
        throwIfAborted(signal, display)
        const entry = await this.#entry(dir, name, join(target.displayPath, name))
        if (entry) entries.push(entry)
      }
      return entries
    })
  }

  writeText(target: FsTarget, content: string, expected?: FsWriteIntent, signal?: AbortSignal): Promise<FsWriteOutcome> {
    const display = target.displayPath
    return this.#lock.run(target.targetKey, () => mapErrors('write', display, async () => {
      throwIfAborted(signal, display)
      await this.#checkReal(target)
      const found = await probe(target.targetKey, display)
      try {
        checkWriteGuard(found.kind === 'absent' ? undefined : found.info, expected, display)
        let previous: Uint8Array | null = null
        // A file too large to hold as text is still replaced; it just keeps no BOM/CRLF style.
        if (found.kind === 'file' && found.info.size! <= this.#options.maxTextBytes) {
          previous = await readAll(found.opened, this.#options.maxTextBytes, display)
        }
        const plan = planWrite(previous, content, display, { before: previous !== null && previous.length <= this.#options.diffMaxBytes })
        const destination = found.kind === 'file' ? found.opened.real : target.targetKey
        const mode = expected === undefined ? 'replace-any' : expected.kind === 'createIfAbsent' ? 'create' : 'replace-at-version'
        const version = await this.#publish(found, destination, plan.bytes, mode, display, signal)
        return {
          operation: found.kind === 'absent' ? 'create' : 'update',
          version,
          before: plan.before,
          after: plan.after,
        } satisfies FsWriteOutcome
      } finally {
        if (found.kind === 'file') await found.opened.handle.close().catch(() => {})
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
      await this.#checkReal(target)
      const found = await probe(target.targetKey, display)
      try {
        // The guard runs before any matching: a stale edit never reports a match error.
        checkEditGuard(found.kind === 'absent' ? undefined : found.info, expected, display)
        if (found.kind !== 'file') throw new FsError('FS_NOT_REGULAR_FILE', `${display} is not a regular file`, { path: display })
        const current = await readAll(found.opened, this.#options.maxTextBytes, display)
        const plan = planEdit(current, edit, display)
        const before = current.length <= this.#options.diffMaxBytes ? plan.before : null
        const outcome = { before, after: plan.after, replacements: plan.replacements }
        // An edit that changes no byte publishes nothing: the file and its version stay as they are.
        if (Buffer.from(plan.bytes).equals(current)) return { version: found.info.version, ...outcome }
        const version = await this.#publish(found, found.opened.real, plan.bytes, 'replace-at-version', display, signal)
        return { version, ...outcome }
      } finally {
        if (found.kind === 'file') await found.opened.handle.close().catch(() => {})
      }
    })
  }

  /**
   * Stages `bytes` beside `destination` and publishes them. Everything that can fail without
   * harm (abort, containment, a version that moved) is checked after staging and before the
   * publication point; once `rename`/`link` has run the write has happened and cleanup is best effort.
   */
  async #publish(found: Probe, destination: string, bytes: Uint8Array, mode: PublishMode, display: string, signal?: AbortSignal): Promise<FsVersion> {
    // Every step below goes through the anchored parent: a directory swapped for a symlink from
    // now on cannot move the staging, the lock or the published name out of the root.
    const anchor = await anchorDirectory(dirname(destination), this.containment, display)
    try {
      const anchored = join(anchor.path, basename(destination))
      await this.#sweep(anchor.path, await anchor.real())
      const staged = await stage(anchor.path, bytes, found.kind === 'file' ? previousOf(found.opened.stats) : undefined)
      try {
        await this.#options.beforePublish?.(destination)
        throwIfAborted(signal, display)
        // The bytes land in the anchored directory, which must still be inside the root; and the
        // caller's path must still lead inside too (a directory swapped for a link fails here).
        await this.containment.check(join(await anchor.real(), basename(destination)), display)
        await this.containment.check(join(await realpath(dirname(destination)), basename(destination)), display)
        if (mode === 'create') {
          await publishCreate(staged, anchored, display)
        } else {
          // Held across processes: between another provider's re-check and its rename, ours must not run.
          await withPublishLock(anchored, display, async () => {
            await this.#recheck(found, anchored, mode, display)
            await publishReplace(staged, anchored)
          })
        }
        return versionOf(await settle(staged))
      } finally {
        await discard(staged)
      }
    } finally {
      await anchor.close()
    }
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

  async #entry(dir: string, name: string, display: string): Promise<FsDirEntry | undefined> {
    const path = join(dir, name)
    const stats = await statPath(path)
    if (stats === undefined) return undefined // removed since readdir
    let key = path
    try {
      key = await realKey(path)
      await this.containment.check(key, display)
    } catch {
      // A link leading outside the root is listed as what it is, never followed.
      return { name, type: 'other', target: { targetKey: path as FsTargetKey, displayPath: display } }
    }
    const info = infoOfEntry(stats)
    const entry: FsDirEntry = { name, type: info.type, target: { targetKey: key as FsTargetKey, displayPath: display }, version: info.version }
    if (info.size !== undefined) entry.size = info.size
    return entry
  }

  /** `dir` is where to look (possibly an anchored path); `key` the directory's real path, swept once. */
  async #sweep(dir: string, key: string): Promise<void> {
    if (this.#swept.has(key)) return
    if (this.#swept.size > 4096) this.#swept.clear()
    this.#swept.add(key)
    await reclaimStaging(dir)
    await reclaimDeadLocks(dir)
  }
}
