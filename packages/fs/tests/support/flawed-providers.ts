import type { Context } from 'cordis'
import { posix } from 'node:path'
import {
  FsError, type FsEditOptions, type FsEditRequest, type FsInfo, type FsListOptions, type FsReadOptions, type FsTarget, type FsWriteOptions, type FsWriteOutcome,
} from '@deepseek-ai/dsh-fs'
import { checkWriteGuard, planWrite, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import { MemoryFileSystem, type MemoryFileSystemConfig, type MemoryVolume } from '@deepseek-ai/dsh-fs/memory'

/**
 * Deliberately broken providers, each one mistake a real provider made, for proving that the
 * conformance clause written against that mistake fails. Each is `MemoryFileSystem` with its
 * `writeText` rewritten as the broken provider wrote it; `flaw: undefined` is the correct loop, the
 * control that the same clause passes.
 */
export type Flaw =
  /** `replaceIfVersion` decided at the first probe only, not again before publication. */
  | 'guard-at-probe-only'
  /** Bytes staged under a name beside the target, which `listDir` shows, and left there when the write fails. */
  | 'visible-staging'
  /** No abort check after the step before publication. */
  | 'late-abort-ignored'
  /** Publishes, then reports an abort that came while it was settling (an fsync after the rename). */
  | 'aborted-after-publish'

export class FlawedMemoryFileSystem extends MemoryFileSystem {
  private flaw: Flaw | undefined

  constructor(ctx: Context, config: MemoryFileSystemConfig & { flaw?: Flaw }) {
    super(ctx, config)
    this.flaw = config.flaw
  }

  override async writeText(target: FsTarget, content: string, { expected, signal, decoding }: FsWriteOptions = {}): Promise<FsWriteOutcome> {
    const path = target.displayPath
    const key = target.targetKey
    throwIfAborted(signal, path)
    checkWriteGuard(infoOf(this.volume, key), expected, path)
    const previous = this.volume.readFile(key) ?? null
    const plan = planWrite(previous, content, path, decoding)
    const stage = posix.join(posix.dirname(key), `.${posix.basename(key)}.staged`)
    if (this.flaw === 'visible-staging') this.volume.writeFile(stage, plan.bytes)
    await this.volume.publishing()
    if (this.flaw !== 'late-abort-ignored') throwIfAborted(signal, path)
    if (this.flaw !== 'guard-at-probe-only' || expected?.kind !== 'replaceIfVersion') checkWriteGuard(infoOf(this.volume, key), expected, path)
    const version = this.volume.store(key, plan.bytes)
    if (this.flaw === 'visible-staging') this.volume.remove(stage)
    if (this.flaw === 'aborted-after-publish') {
      await new Promise<void>((settled) => setImmediate(settled))
      throwIfAborted(signal, path)
    }
    return { operation: previous === null ? 'create' : 'update', version, before: plan.before, after: plan.after }
  }
}

/**
 * A memory provider reached over a "connection" that the fixture can drop. Dropped, every call
 * waits for an answer that never comes: with `deadlineMs` it gives up as a correct remote provider
 * does (`FS_IO_ERROR`), without it it hangs, as the SFTP provider's first call after a drop did.
 */
export class RemoteMemoryFileSystem extends MemoryFileSystem {
  private deadlineMs: number | undefined
  private dropped = false

  constructor(ctx: Context, config: MemoryFileSystemConfig & { deadlineMs?: number }) {
    super(ctx, config)
    this.deadlineMs = config.deadlineMs
  }

  drop(): void {
    this.dropped = true
  }

  override async stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    await this.roundTrip(target)
    return super.stat(target, signal)
  }

  override async readText(target: FsTarget, opts?: FsReadOptions | AbortSignal): Promise<string> {
    await this.roundTrip(target)
    return super.readText(target, opts)
  }

  override async listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions) {
    await this.roundTrip(target)
    return super.listDir(target, signal, opts)
  }

  override async writeText(target: FsTarget, content: string, opts?: FsWriteOptions) {
    await this.roundTrip(target)
    return super.writeText(target, content, opts)
  }

  override async editText(target: FsTarget, edit: FsEditRequest, opts?: FsEditOptions) {
    await this.roundTrip(target)
    return super.editText(target, edit, opts)
  }

  private roundTrip(target: FsTarget): Promise<void> {
    if (!this.dropped) return Promise.resolve()
    const deadline = this.deadlineMs
    if (deadline === undefined) return new Promise(() => {})
    return new Promise((_, fail) => setTimeout(() => {
      fail(new FsError('FS_IO_ERROR', `no answer from the backend within ${deadline} ms (${target.displayPath})`, { path: target.displayPath }))
    }, deadline))
  }
}

function infoOf(volume: MemoryVolume, key: string): FsInfo | undefined {
  const node = volume.get(key)
  if (!node) return undefined
  return node.type === 'file' ? { type: 'file', version: node.version, size: node.bytes.length } : { type: 'directory', version: node.version }
}
