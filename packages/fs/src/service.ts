import { type Context, Service } from 'cordis'
import { collectBytes } from './bytes'
import { decodeChunks } from './decode'
import { fsError } from './errors'
import { DEFAULT_MAX_TEXT_BYTES } from './limits'
import { FS_OPTIONAL_METHODS } from './types'
import type {
  FsCapabilities, FsDirListing, FsEditOutcome, FsEditRequest, FsInfo, FsInspection, FsInspectOptions, FsListOptions, FsReadOptions, FsResolveOptions, FsStreamFromOptions, FsTarget,
  FsEditOptions, FsRemoveOptions, FsRemoveOutcome, FsRenameOptions, FsRenameOutcome, FsWriteOptions, FsWriteOutcome,
} from './types'
import { defaultEditTextMany, defaultSearch, defaultWalk } from './discovery'
import type { FsSearchOptions, FsSearchResult, FsWalkOptions, FsWalkResult } from './discovery-types'

declare module 'cordis' {
  interface Context {
    fs: FileSystem
  }
}

/**
 * The filesystem service on `ctx.fs`. A provider implements it for one backend and proves it with
 * `@deepseek-ai/dsh-fs/conformance`. Every failure is an `FsError` with a code.
 *
 * Text is UTF-8 (a BOM is hidden from readers and kept by writers); binary or invalid UTF-8 fails
 * `FS_NOT_TEXT`. Special files (FIFOs, sockets, devices) are never opened in a way that can block.
 */
export abstract class FileSystem extends Service {
  /**
   * The largest text file this provider reads whole or changes: a larger one fails `FS_TOO_LARGE`.
   * Tools read it to refuse such a change by its size up front; a provider with its own bound overrides it.
   */
  readonly maxTextBytes: number = DEFAULT_MAX_TEXT_BYTES

  /**
   * The optional methods this provider has. A provider declares them by passing them to `super`;
   * one that does not is taken to have exactly the optional methods it implements (what a provider
   * written before the declaration meant).
   */
  readonly capabilities: FsCapabilities

  constructor(ctx: Context, capabilities?: FsCapabilities) {
    super(ctx, 'fs')
    // A method reached through `ctx.fs` runs on the provider itself, not on a per-call shadow of it:
    // no contract method reads the caller's context, and the shadow cost each call several proxies.
    const tracker = (this as unknown as Record<symbol, { noShadow?: boolean }>)[Service.tracker]!
    tracker.noShadow = true
    const implemented = () => Object.fromEntries(FS_OPTIONAL_METHODS.map((method) => [method, typeof this[method] === 'function'])) as FsCapabilities
    this.capabilities = Object.freeze({ ...(capabilities ?? implemented()) })
  }

  /**
   * Turns a path into a target. Relative paths resolve against `opts.cwd`, else the provider's cwd.
   * The key of a missing path is the key the file will have once created.
   */
  abstract resolve(path: string, opts?: FsResolveOptions): Promise<FsTarget>

  /**
   * A target for a write or edit that follows at once. A provider whose `resolve` costs a round trip
   * may answer from what it learned earlier (a read of the same path, its parent directory), on one
   * condition: each of its mutations checks again, inside its critical section, that the path still
   * leads to the key, and refuses with `FS_STALE_VERSION` (nothing written) when it does not.
   * The default is `resolve`, which needs no such check.
   */
  resolveForMutation(path: string, opts?: FsResolveOptions): Promise<FsTarget> {
    return this.resolve(path, opts)
  }

  /**
   * A target for a `walk` or `search` that follows at once, used only as their root. A provider
   * whose `resolve` costs a round trip may name it without one (the lexical path), on one
   * condition: its `walk` and `search` resolve the root themselves, inside the same step, and fail
   * as they would through `resolve` (`FS_NOT_FOUND`, `FS_NOT_DIRECTORY`, `FS_OUTSIDE_ROOT`...).
   * The default is `resolve`.
   */
  resolveForDiscovery(path: string, opts?: FsResolveOptions): Promise<FsTarget> {
    return this.resolve(path, opts)
  }

  /**
   * `resolve`, `stat` and, for a regular file within `opts.textUpTo` bytes, `readText`, as one step:
   * a provider that can do them in one round trip overrides it, and its text is then of exactly the
   * version in `info` (the default's text may be of a later one, as two calls always could be).
   * Counts as the one stat of a read. Errors are those of the three calls.
   */
  async inspect(path: string, opts: FsInspectOptions = {}): Promise<FsInspection> {
    const { textUpTo, as, decoding, ...resolveOpts } = opts
    const target = await this.resolve(path, resolveOpts)
    const info = await this.stat(target, opts.signal)
    if (info?.type !== 'file' || textUpTo === undefined || info.size === undefined || info.size > textUpTo) return { target, info }
    if (as === 'bytes') return { target, info, bytes: await collectBytes(this.streamBytes(target, opts.signal), textUpTo, target.displayPath) }
    return { target, info, text: await this.readText(target, { signal: opts.signal, decoding }) }
  }

  /** Metadata of the target, following symlinks; `undefined` when nothing exists there. */
  abstract stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined>

  /**
   * The whole file as text (BOM dropped): binary or invalid UTF-8 fails `FS_NOT_TEXT` unless
   * `opts.decoding` decides a legacy encoding. A bare `AbortSignal` is accepted as `{ signal }`
   * (`readOptionsOf` in the kit takes both forms apart).
   */
  abstract readText(target: FsTarget, opts?: FsReadOptions | AbortSignal): Promise<string>

  /**
   * The file's raw bytes, in chunks, with memory bounded by the chunk size: what a reader that skips
   * most of a large file decodes itself (`Utf8StreamDecoder`, whose `skip` validates without
   * building strings). Same type checks and errors as `readText`; the bytes are the file's, BOM
   * included. A chunk may be a view into a buffer the provider reuses: it is valid until the next
   * chunk is requested.
   */
  abstract streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array>

  /**
   * The same text as `readText`, in chunks, with memory bounded by the chunk size. This default
   * decodes `streamBytes` as it arrives (BOM dropped, `FS_NOT_TEXT` for binary or invalid UTF-8).
   * UTF-8 only: a reader of a legacy encoding reads the file whole (`readText` with a decoding).
   */
  streamText(target: FsTarget, signal?: AbortSignal): AsyncIterable<string> {
    return decodeChunks(this.streamBytes(target, signal), target.displayPath)
  }

  /**
   * `streamBytes` from byte `start` on (in the coordinates of `streamBytes`), for a reader that
   * resumes where it found a line before. With `version`, a file that is no longer at that version
   * fails `FS_STALE_VERSION` instead of streaming bytes the caller would misplace. This default
   * checks the version with a `stat` (when resuming) and skips the first `start` bytes of
   * `streamBytes`; providers override it to seek instead and to check the descriptor they opened.
   */
  async *streamBytesFrom(target: FsTarget, start: number, opts: FsStreamFromOptions = {}): AsyncIterable<Uint8Array> {
    if (opts.version !== undefined && start > 0) {
      const info = await this.stat(target, opts.signal)
      if (info?.version !== opts.version) {
        throw fsError('FS_STALE_VERSION', { path: target.displayPath })
      }
    }
    let skipped = 0
    for await (const chunk of this.streamBytes(target, opts.signal)) {
      if (skipped >= start) yield chunk
      else if (skipped + chunk.length > start) yield chunk.subarray(start - skipped)
      skipped += chunk.length
    }
  }

  /**
   * The directory's entries in name order, never following an entry outside the provider's bounds.
   * With `opts.limit`, only that many entries are inspected and returned, and `omitted` says how
   * many more there are: a listing of a huge directory costs what it shows.
   */
  abstract listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing>

  /**
   * Publishes `content` atomically: readers see the old bytes or the new, never a mix. The guard
   * (`opts.expected`) is checked inside the provider's per-target critical section:
   * - no `expected`: create or overwrite;
   * - `createIfAbsent`: an existing regular file fails `FS_NOT_OBSERVED`, a directory, special file or
   *   dangling symlink fails `FS_NOT_REGULAR_FILE`; the no-replace check happens at the publication
   *   point, so a competitor that appears after any earlier probe survives;
   * - `replaceIfVersion`: a moved version or a missing file fails `FS_STALE_VERSION` (never recreates).
   * Over an existing file the BOM is kept, and CRLF is kept when the file used it throughout and the
   * new content has bare LF only. `hooks.published` may hear the outcome before the call resolves.
   * Content above the provider's text limit fails `FS_TOO_LARGE` before anything is reserved or
   * encoded (`checkWriteSize`); the write reserves its memory from the process budget (`writeCost`).
   */
  abstract writeText(target: FsTarget, content: string, opts?: FsWriteOptions): Promise<FsWriteOutcome>

  /**
   * Replaces `oldString` literally. The version guard (`opts.expected`) is checked before matching (a stale edit never
   * reports a match error); a missing target fails `FS_STALE_VERSION` with or without a guard.
   * Matching happens with line endings normalised to LF; only the matched spans are rewritten.
   * `hooks.published` may hear the outcome before the call resolves.
   */
  abstract editText(target: FsTarget, edit: FsEditRequest, opts?: FsEditOptions): Promise<FsEditOutcome>

  /*
   * Guarded removal and move: optional capabilities, declared in `capabilities`. A provider written
   * before them leaves them out, and callers (the `apply_patch` tool) read `capabilities` and refuse
   * what needs them, naming the provider's lack.
   * `remove` cannot be composed from the methods above (nothing else takes a name away); a
   * provider that has it may take `composedRename` (`/kit`) as its `rename`. Both decide their
   * guards inside the provider's critical section, like `editText`.
   */

  /**
   * Removes the regular file at `target`, checked at the publication point:
   * - a missing target fails `FS_STALE_VERSION`, with or without a guard (there is nothing to remove);
   * - `opts.expected` given: a file at another version fails `FS_STALE_VERSION`, before anything else;
   * - a directory, special file or dangling symlink fails `FS_NOT_REGULAR_FILE` (never removed);
   * - a file nobody may write (no write bit, `chmod a-w`) fails `FS_PERMISSION_DENIED`.
   * A symlink is followed: the file it leads to is removed, as a write lands on it. Costs one
   * request on a remote backend.
   */
  remove?(target: FsTarget, opts?: FsRemoveOptions): Promise<FsRemoveOutcome>

  /**
   * Moves the regular file at `source` to `destination`, which must not exist: the no-replace check
   * happens at the publication point (a hard link locally, `ln -T` remotely), so a competitor that
   * appears after any probe keeps its bytes. The source is guarded as `remove` guards its target;
   * something at the destination fails like a `createIfAbsent` write (`FS_NOT_OBSERVED` for a regular
   * file, `FS_NOT_REGULAR_FILE` otherwise), and the destination's missing parent directories are
   * made. The bytes, mode and BOM travel unchanged; the outcome carries the destination's version.
   * A move onto the source itself fails `FS_INVALID_PATH`. Costs one request on a remote backend.
   */
  rename?(source: FsTarget, destination: FsTarget, opts?: FsRenameOptions): Promise<FsRenameOutcome>

  /*
   * Discovery and multi-edit: optional for a provider. The defaults are built from the methods
   * above (`discovery.ts`); local and remote providers override them to save requests.
   */

  /**
   * The entries under a directory, depth first in name order: `.git` skipped, `.gitignore` honoured
   * unless `includeIgnored`, symlinks reported and never followed, nothing outside the provider's
   * root. Bounded by `limit` (reported entries) and `maxVisited` (entries looked at).
   */
  walk(root: FsTarget, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
    return defaultWalk(this, root, options, signal)
  }

  /**
   * Searches the regular text files a walk with the same filter reports for a regular expression
   * (JavaScript syntax without lookaround or backreferences, matched in linear time), line by line. Binary, invalid UTF-8 and oversized files are skipped and counted.
   * An invalid pattern or glob fails `FS_INVALID_PATTERN` before anything is read.
   */
  search(root: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
    return defaultSearch(this, root, options, signal)
  }

  /**
   * Applies `edits` in order to one snapshot of the file and publishes the result once, guarded by
   * one version check (`expected` before any matching, as in `editText`). If any step fails
   * nothing is written, and the error (`FsEditStepError`) carries the step's `editIndex`. The bounds
   * of `editText` hold for every step (its result sized before it is built, the memory budget), and
   * more than `FS_MAX_EDITS` edits, `FS_MAX_EDIT_WORK` of text searched or `FS_MAX_REPLACEMENTS`
   * replacements fail `FS_TOO_LARGE` (`planEdits`).
   */
  editTextMany(target: FsTarget, edits: readonly FsEditRequest[], opts?: FsEditOptions): Promise<FsEditOutcome> {
    return defaultEditTextMany(this, target, edits, opts)
  }
}
