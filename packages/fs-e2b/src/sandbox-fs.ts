import {
  type FsCapabilities, FsError, fsError, type FsDirEntry, type FsDirListing, type FsListOptions, type FsEditOutcome, type FsEditRequest, type FsInfo, type FsInspection,
  type FsInspectOptions, type FsReadOptions, type FsRemoveOutcome, type FsTextDecoding, type FsRenameOutcome, type FsResolveOptions, type FsTarget, type FsTargetKey, type FsVersion, type FsWriteIntent, type FsWriteOutcome,
  type FsEditOptions, type FsRemoveOptions, type FsRenameOptions, type FsWriteOptions,
  type FsSearchOptions, type FsSearchResult, type FsWalkOptions, type FsWalkResult,
} from '@deepseek-ai/dsh-fs'
import {
  checkEditGuard, checkMoveDestination, checkWriteGuard, checkWriteSize, DEFAULT_MAX_TEXT_BYTES, decodeText, describeEntry, EDIT_COST_PER_BYTE, editOutcome, KeyedLock, type MemoryBudget,
  planEdit, planEdits, type PlannedEdit, type PlannedEdits, planReserved, planWrite, processMemoryBudget, publishGuarded, readOptionsOf, Reservation, TEXT_COST_PER_BYTE,
  throwIfAborted, toListing, writeCost,
} from '@deepseek-ai/dsh-fs/kit'
import type { Sandbox } from 'e2b'
import { posix } from 'node:path'
import { searchSandbox, walkSandbox } from './discovery'
import { statusError, toFsError } from './errors'
import { type Identities, identitiesOf } from './identities'
import { inspectAt } from './inspect'
import { danglingInfo, parseIdentity, parseList, parseRead, parseStatLine } from './parse'
import {
  commitPublication, discardStage, freeElsewhere, INLINE_COMMAND_MAX, pathMoved, type Publication, type StagedPublication, stagePublication,
} from './publish'
import { LIST, MOVE, READ, REMOVE, RESOLVE, STAT } from './scripts'
import { type ControlResult, runControl } from './shell'
import { statusOf } from './status'

/**
 * How many times an unguarded mutation re-reads after losing a race before it gives up. Every lost
 * compare-and-swap means another writer won, so among a bounded crowd of one-shot writers each
 * one needs at most as many attempts as there are writers; the jittered pause spreads them out.
 */
const MAX_ATTEMPTS = 10

/** A staged publication, and whether its publishing command went out (after which it is the script's to clean). */
type Staged = StagedPublication & { sent: boolean }

/** What one `READ` found at a target. `bytes` is present only for a regular file read with content. */
type Observed =
  | { kind: 'absent' }
  | { kind: 'dangling' }
  | { kind: 'present'; info: FsInfo; bytes?: Uint8Array }

export interface SandboxFsOptions {
  sandbox: Sandbox
  /** Where relative paths resolve from (absolute, in the sandbox). */
  cwd: string
  /** What `~` expands to. */
  home: string
  /** Largest text a write or an edit may produce. Default `DEFAULT_MAX_TEXT_BYTES`. */
  maxTextBytes?: number
  /** What reads and edits reserve memory from. Default: the process's budget. */
  memoryBudget?: MemoryBudget
  /** Largest publishing command that carries the content inline. Default `INLINE_COMMAND_MAX`; 0: always upload. */
  inlineCommandMax?: number
  /** Most paths remembered for `resolveForMutation` (oldest forgotten first). Default `MAX_REMEMBERED_PATHS`. */
  maxRememberedPaths?: number
}

/**
 * The `FileSystem` contract over one E2B sandbox, without Cordis: every operation is one control
 * script (`scripts.ts`) and, for writes, one upload. Mutations of one target are serialised in
 * this process by a `KeyedLock`, and across processes by the directory lock the publishing script
 * takes, so the version check and the rename are one step for every writer.
 */
export class SandboxFs {
  /** The optional methods this backend has (`FileSystem.capabilities`). */
  static readonly capabilities: FsCapabilities = { remove: true, rename: true }
  readonly sandbox: Sandbox
  readonly cwd: string
  readonly home: string
  #lock = new KeyedLock<FsTargetKey>()
  #maxTextBytes: number
  #budget: MemoryBudget
  #identities: Identities
  #inlineCommandMax: number
  /** Targets `resolveForMutation` named by guessing the lexical path (nothing known of their directory). */
  #guessed = new WeakSet<FsTarget>()

  constructor(options: SandboxFsOptions) {
    this.sandbox = options.sandbox
    this.cwd = options.cwd
    this.home = options.home
    this.#maxTextBytes = options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES
    this.#budget = options.memoryBudget ?? processMemoryBudget()
    this.#identities = identitiesOf(options.sandbox, options.maxRememberedPaths)
    this.#inlineCommandMax = options.inlineCommandMax ?? INLINE_COMMAND_MAX
  }

  async resolve(path: string, opts: FsResolveOptions = {}): Promise<FsTarget> {
    const absolute = this.#absolute(path, opts)
    const result = await this.#run(RESOLVE, [absolute], absolute, opts.signal)
    if (result.exitCode !== 0) throw statusError(result, absolute)
    const { identity } = parseIdentity(result.output, absolute)
    this.#identities.learn(absolute, identity)
    return { targetKey: identity.key as FsTargetKey, displayPath: absolute }
  }

  /**
   * From memory when the path or its directory was seen, else the lexical path itself (what the key
   * is whenever no symlink is on the way): never a request. Every publication checks in the sandbox
   * that the path leads to the key, so a wrong name is refused (`FS_STALE_VERSION`, nothing written).
   */
  async resolveForMutation(path: string, opts: FsResolveOptions = {}): Promise<FsTarget> {
    const absolute = this.#absolute(path, opts)
    const key = this.#identities.recall(absolute)
    if (key !== undefined) return { targetKey: key as FsTargetKey, displayPath: absolute }
    const guess = { targetKey: absolute as FsTargetKey, displayPath: absolute }
    this.#guessed.add(guess)
    return guess
  }

  /**
   * The lexical path, without a request: the discovery command follows the path itself and fails as
   * a resolve would (missing, not a directory, closed), and its results are relative to the root.
   */
  async resolveForDiscovery(path: string, opts: FsResolveOptions = {}): Promise<FsTarget> {
    const absolute = this.#absolute(path, opts)
    return { targetKey: absolute as FsTargetKey, displayPath: absolute }
  }

  inspect(path: string, opts: FsInspectOptions = {}): Promise<FsInspection> {
    const absolute = this.#absolute(path, opts)
    // Raw bytes come from the same one command: only their decoding is left out.
    const content = opts.as === 'bytes'
      ? (bytes: Uint8Array) => Promise.resolve({ bytes })
      : async (bytes: Uint8Array) => ({ text: await this.#decode(bytes, absolute, opts) })
    return inspectAt(this.sandbox, absolute, opts, this.#identities, content)
  }

  async stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    const path = target.displayPath
    throwIfAborted(signal, path)
    const result = await this.#run(STAT, [target.targetKey], path, signal)
    if (result.exitCode === 0) return parseStatLine(result.output, path)
    const status = statusOf(result.exitCode)
    // A link to nothing is reported as what it is (as the local provider does); nothing at all is undefined.
    if (status === 'DANGLING') return danglingInfo(result.output, path)
    if (status === 'ABSENT' || status === 'NOT_DIRECTORY') return undefined
    throw statusError(result, path)
  }

  async readText(target: FsTarget, opts?: FsReadOptions | AbortSignal): Promise<string> {
    const path = target.displayPath
    const read = readOptionsOf(opts)
    throwIfAborted(read.signal, path)
    return this.#decode(this.#regularFile(await this.#observe(target, true, read.signal), path).bytes!, path, read)
  }

  /** The raw bytes, downloaded in the SDK's chunks. */
  async *streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    const path = target.displayPath
    throwIfAborted(signal, path)
    // The type is checked remotely first: a FIFO is refused here, never opened by a download.
    this.#regularFile(await this.#observe(target, false, signal), path)
    try {
      const stream = await this.sandbox.files.read(target.targetKey, { format: 'stream', ...(signal ? { signal } : {}) })
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
        throwIfAborted(signal, path)
        yield chunk
      }
    } catch (error) {
      throw toFsError(error, path, signal)
    }
  }

  async listDir(target: FsTarget, signal?: AbortSignal, opts: FsListOptions = {}): Promise<FsDirListing> {
    const path = target.displayPath
    throwIfAborted(signal, path)
    const limit = opts.limit === undefined ? '' : String(Math.max(0, Math.floor(opts.limit)))
    const result = await this.#run(LIST, [target.targetKey, limit, opts.hidden === false ? '0' : '1'], path, signal)
    if (result.exitCode !== 0) throw statusError(result, path, { DANGLING: 'FS_NOT_FOUND' })
    const { entries: listed, total } = parseList(result.output, path)
    // Names counted but not shown: entries cut by the limit (those a stat could not follow drop out).
    const shown = limit === '' ? total ?? 0 : Math.min(total ?? 0, Number(limit))
    return toListing(listed.map(({ name, info, real }) => {
      const entry: FsDirEntry = {
        name,
        type: info.type,
        target: { targetKey: (real ?? posix.join(target.targetKey, name)) as FsTargetKey, displayPath: posix.join(path, name) },
        version: info.version,
      }
      if (info.size !== undefined) entry.size = info.size
      return entry
    }), (total ?? 0) - shown)
  }

  /**
   * A guarded create whose target was a guess, refused only because the path leads elsewhere (a
   * directory symlink on the way) with nothing there, is made once more where the path leads: the
   * same no-replace publication, under the key the command reported, which the outcome names.
   */
  async writeText(target: FsTarget, content: string, { expected, signal, decoding }: FsWriteOptions = {}): Promise<FsWriteOutcome> {
    try {
      return await this.#write(target, content, expected, signal, decoding)
    } catch (error) {
      const real = expected?.kind === 'createIfAbsent' && this.#guessed.has(target) ? freeElsewhere(error) : undefined
      if (real === undefined || real === target.targetKey) throw error
      const landed: FsTarget = { targetKey: real as FsTargetKey, displayPath: target.displayPath }
      return { ...(await this.#write(landed, content, expected, signal, decoding)), target: landed }
    }
  }

  #write(target: FsTarget, content: string, expected?: FsWriteIntent, signal?: AbortSignal, decoding?: FsTextDecoding): Promise<FsWriteOutcome> {
    const key = target.targetKey
    const path = target.displayPath
    // Refused before anything is downloaded, reserved or encoded.
    const contentBytes = checkWriteSize(content, this.#maxTextBytes, path)
    return this.#lock.run(key, () => publishGuarded({
      path,
      signal,
      probe: async () => {
        // A guarded create needs no probe: the publication itself refuses anything in the way.
        const current = expected?.kind === 'createIfAbsent' ? undefined : this.#writable(await this.#observe(target, true, signal), path)
        checkWriteGuard(current?.info, expected, path)
        // The old bytes are already here; the reservation covers their text and the new bytes.
        const release = await this.#budget.reserve(writeCost(contentBytes, current?.bytes?.length ?? 0), 'writing', path, signal)
        return { current, release }
      },
      stage: async ({ current }) => {
        const plan = planWrite(current?.bytes ?? null, content, path, decoding)
        const publication: Publication = current === undefined ? { mode: 'create' } : { mode: 'replace', version: current.info.version }
        return { plan, staged: await this.#stage(key, path, plan.bytes, publication, signal) }
      },
      // No `recheck`: the publishing command checks the guard and renames under one lock.
      publish: async ({ current }, { plan, staged }) => {
        const info = await this.#commit(staged)
        return { operation: current === undefined ? 'create' : 'update', version: info.version, before: plan.before, after: plan.after }
      },
      cleanup: async ({ release }, stage) => {
        release()
        await this.#discard(stage?.staged)
      },
      retry: (error, attempt) => this.#retryLostRace(error, attempt, expected !== undefined, path),
    }))
  }

  editText(target: FsTarget, edit: FsEditRequest, { expected, signal, decoding }: FsEditOptions = {}): Promise<FsEditOutcome> {
    return this.#edit(target, (bytes, held) => planEdit(bytes, edit, target.displayPath, this.#maxTextBytes, held, decoding), expected, signal)
  }

  /** One download, every edit applied in order, one guarded publication: the machinery and bounds of `editText`. */
  editTextMany(target: FsTarget, edits: readonly FsEditRequest[], { expected, signal, decoding }: FsEditOptions = {}): Promise<FsEditOutcome> {
    return this.#edit(target, (bytes, held) => planEdits(bytes, edits, target.displayPath, this.#maxTextBytes, held, decoding), expected, signal)
  }

  /** `plan` makes the new text of the old bytes within `held` bytes of memory, or says it needs more (`MemoryShortfall`). */
  #edit(target: FsTarget, plan: (bytes: Uint8Array, held: number) => PlannedEdit | PlannedEdits, expected?: { version: FsVersion }, signal?: AbortSignal): Promise<FsEditOutcome> {
    const key = target.targetKey
    const path = target.displayPath
    return this.#lock.run(key, () => publishGuarded({
      path,
      signal,
      probe: async () => {
        const observed = await this.#observe(target, true, signal)
        const current = observed.kind === 'present' ? observed : undefined
        // The version is judged before any matching, so a stale edit never reports a match error.
        checkEditGuard(current?.info, expected, path)
        // The old bytes are already here; the reservation covers their text and the new text and bytes.
        const memory = new Reservation(this.#budget, 'editing', path, signal)
        await memory.ensure(EDIT_COST_PER_BYTE * current!.bytes!.length)
        return { info: current!.info, bytes: current!.bytes!, memory }
      },
      stage: async (current) => {
        // A result larger than the old text waits for its memory before it is built.
        const planned = await planReserved(current.memory, (held) => plan(current.bytes, held))
        // An edit that changes nothing has nothing to publish.
        if (sameBytes(planned.bytes, current.bytes)) return { planned }
        return { planned, staged: await this.#stage(key, path, planned.bytes, { mode: 'replace', version: current.info.version }, signal) }
      },
      publish: async (current, { planned, staged }) => {
        const outcome = editOutcome(planned)
        if (staged === undefined) return { version: current.info.version, ...outcome }
        return { version: (await this.#commit(staged)).version, ...outcome }
      },
      cleanup: async (current, stage) => {
        current.memory.release()
        await this.#discard(stage?.staged)
      },
      retry: (error, attempt) => this.#retryLostRace(error, attempt, expected !== undefined, path),
    }))
  }

  /** One `find` in the sandbox, filtered by the contract's rules here. */
  walk(root: FsTarget, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
    return walkSandbox(this.sandbox, root, options, signal)
  }

  search(root: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
    return searchSandbox(this.sandbox, root, options, signal)
  }

  /** One `REMOVE` command: the version check and the removal under the directory lock every publication takes. */
  remove(target: FsTarget, { expected, signal }: FsRemoveOptions = {}): Promise<FsRemoveOutcome> {
    const key = target.targetKey
    const path = target.displayPath
    return this.#lock.run(key, async () => {
      // The last moment at which nothing has changed: once sent, the command runs to its end.
      throwIfAborted(signal, path)
      const result = await this.#run(REMOVE, [key, expected?.version ?? '', path], path)
      if (result.exitCode !== 0) throw statusError(result, path)
      return { version: parseStatLine(result.output, path).version }
    })
  }

  /** One `MOVE` command: the source's version check, `ln -T` (never replacing) and the source's removal, under both directories' locks. */
  rename(source: FsTarget, destination: FsTarget, { expected, signal }: FsRenameOptions = {}): Promise<FsRenameOutcome> {
    const path = source.displayPath
    const where = destination.displayPath
    return this.#lock.runAll([source.targetKey, destination.targetKey], async () => {
      checkMoveDestination(undefined, source.targetKey === destination.targetKey, where)
      throwIfAborted(signal, path)
      const result = await this.#run(MOVE, [source.targetKey, destination.targetKey, expected?.version ?? '', path, where], path)
      if (result.exitCode !== 0) {
        // What stands at the destination, or a destination that cannot be made, is the destination's failure.
        const status = statusOf(result.exitCode)
        throw statusError(result, status === 'EXISTS' || status === 'TAKEN' || status === 'NOT_DIRECTORY' ? where : path)
      }
      return { version: parseStatLine(result.output, where).version }
    })
  }

  #stage(key: string, path: string, bytes: Uint8Array, publication: Publication, signal?: AbortSignal): Promise<Staged> {
    return stagePublication(this.sandbox, key, path, bytes, publication, signal, this.#inlineCommandMax).then((staged) => ({ ...staged, sent: false }))
  }

  #commit(staged: Staged): Promise<FsInfo> {
    staged.sent = true
    return commitPublication(this.sandbox, staged)
  }

  /** An upload whose publishing command was never sent (an abort after staging) is removed. */
  async #discard(staged: Staged | undefined): Promise<void> {
    if (staged !== undefined && !staged.sent) await discardStage(this.sandbox, staged)
  }

  /** Without a guard, losing a race only means the plan was made from old bytes: plan again, a bounded number of times. */
  async #retryLostRace(error: unknown, attempt: number, guarded: boolean, path: string): Promise<boolean> {
    if (guarded || !lostRace(error)) return false
    if (attempt >= MAX_ATTEMPTS) throw busy(path, error)
    await backoff(attempt)
    return true
  }

  /**
   * One `READ` of the target. With `content`, the bytes come with the version they belong to: a
   * read that overlapped a change is repeated, so an edit never splices bytes of one version and
   * publishes them against another.
   */
  async #observe(target: FsTarget, content: boolean, signal?: AbortSignal): Promise<Observed> {
    const path = target.displayPath
    for (let attempt = 1; ; attempt++) {
      const result = await this.#run(READ, [target.targetKey, content ? 'content' : 'meta'], path, signal)
      const status = statusOf(result.exitCode)
      if (status === 'ABSENT') return { kind: 'absent' }
      if (status === 'DANGLING') return { kind: 'dangling' }
      if (status === 'NOT_REGULAR') return { kind: 'present', info: parseStatLine(result.output.split('\n')[0]!, path) }
      if (result.exitCode !== 0) throw statusError(result, path)
      if (!content) return { kind: 'present', info: parseStatLine(result.output.split('\n')[0]!, path) }
      const snapshot = parseRead(result.output, path)
      if (snapshot.consistent) return { kind: 'present', info: snapshot.info, bytes: snapshot.bytes }
      if (attempt >= MAX_ATTEMPTS) throw fsError('FS_IO_ERROR', { path, reason: 'kept changing while it was read' })
      throwIfAborted(signal, path)
    }
  }

  /** A regular file as observed (with its bytes when they were asked for), or the reader's error for anything else. */
  #regularFile(observed: Observed, path: string): { info: FsInfo; bytes?: Uint8Array } {
    if (observed.kind !== 'present') throw fsError('FS_NOT_FOUND', { path })
    if (observed.info.type !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path, entry: describeEntry(observed.info) })
    return observed
  }

  /** A writer's view: a dangling symlink is something in the way, not an empty slot. */
  #writable(observed: Observed, path: string): { info: FsInfo; bytes?: Uint8Array } | undefined {
    if (observed.kind === 'dangling') throw fsError('FS_NOT_REGULAR_FILE', { path, entry: 'a symlink to nothing' })
    return observed.kind === 'present' ? observed : undefined
  }

  async #run(script: string, args: string[], path: string, signal?: AbortSignal): Promise<ControlResult> {
    try {
      return await runControl(this.sandbox, script, args, signal === undefined ? {} : { signal })
    } catch (error) {
      throw toFsError(error, path, signal)
    }
  }

  /** The text of a file's bytes, with the memory for it reserved from the budget while it is built. */
  #decode(bytes: Uint8Array, path: string, { signal, decoding }: FsReadOptions): Promise<string> {
    return this.#budget.with(TEXT_COST_PER_BYTE * bytes.length, 'reading', path, signal, async () => decodeText(bytes, path, decoding).text)
  }

  /** The lexically absolute path of `path` (no round trip), or `FS_INVALID_PATH`. */
  #absolute(path: string, opts: FsResolveOptions): string {
    throwIfAborted(opts.signal, path)
    if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
      throw fsError('FS_INVALID_PATH', { path: String(path) })
    }
    const base = opts.cwd === undefined ? this.cwd : posix.resolve(this.cwd, this.#expandHome(opts.cwd))
    return posix.resolve(base, this.#expandHome(path))
  }

  #expandHome(path: string): string {
    if (path === '~') return this.home
    return path.startsWith('~/') ? posix.join(this.home, path.slice(2)) : path
  }
}

/** A competitor's publication; a path that now leads elsewhere is not one, and a retry would not help. */
function lostRace(error: unknown): boolean {
  return (FsError.is(error, 'FS_STALE_VERSION') || FsError.is(error, 'FS_NOT_OBSERVED')) && !pathMoved(error)
}

function backoff(attempt: number): Promise<void> {
  return new Promise((resume) => setTimeout(resume, Math.random() * 40 * Math.min(attempt, 5)))
}

function busy(path: string, cause: unknown): FsError {
  return fsError('FS_IO_ERROR', { path, cause, reason: 'kept changing under concurrent writers; nothing was written' })
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b)
}
