import type { FsTextDecoding } from './decoding'
import type { FsTextEncoding } from './encodings'

declare const targetKeyBrand: unique symbol
declare const versionBrand: unique symbol

/** The identity of a file: two spellings of one file give one key. Minted only by providers. */
export type FsTargetKey = string & { readonly [targetKeyBrand]: true }

/** An opaque token that changes whenever a file's content or metadata changes. Minted only by providers. */
export type FsVersion = string & { readonly [versionBrand]: true }

export interface FsTarget {
  readonly targetKey: FsTargetKey
  /** What humans and the model see; never used for identity. */
  readonly displayPath: string
}

export type FsEntryType = 'file' | 'directory' | 'other'

/** What an `other` entry is, when the provider knows: tools name it to the model as such. */
export type FsSpecialKind = 'fifo' | 'socket' | 'device' | 'broken-symlink'

export interface FsInfo {
  version: FsVersion
  type: FsEntryType
  size?: number
  /** Only for `type: 'other'`; optional, so a provider that cannot tell leaves it out. */
  special?: FsSpecialKind
}

/**
 * What an actor learned about a target: it exists at a version, or it does not exist. A `present`
 * observation may also say which lines of that version the actor was shown (`seen`) and, after the
 * actor's own mutation, which version it made this one from (`from`), so that what it had seen of
 * that one carries over. Both are optional: an observation without them says only "present".
 */
export type FsObservation =
  | { kind: 'present'; version: FsVersion; seen?: FsSeenLines; from?: FsDerivation }
  | { kind: 'absent' }

/**
 * The lines of one version an actor was shown. Plain data (numbers and arrays), so that it can be
 * stored and sent. Lines are counted as `cat -n` counts them; characters are code points.
 */
export interface FsSeenLines {
  /** Lines shown whole: 1-based, inclusive `[first, last]` ranges, ascending and disjoint. */
  ranges: Array<[number, number]>
  /** Lines shown only in part (cut at the display limit), by the characters shown. */
  parts?: FsSeenPart[]
  /** The version's line count, when the actor learned it. */
  total?: number
  /**
   * The legacy encoding the lines and characters were counted in (absent: UTF-8). Counts made in
   * another encoding name other bytes, so what was seen in one never adds to what was seen in another.
   */
  encoding?: FsTextEncoding
}

/** Characters `from` to `to` (1-based, inclusive) of line `line`; `end`: `to` is its last character. */
export interface FsSeenPart {
  line: number
  from: number
  to: number
  end: boolean
}

/**
 * How an actor's own mutation made a version: from version `from` by `changes` (every changed
 * region, in order, in lines of the new text). Lines outside the changes are the old ones, moved.
 */
export interface FsDerivation {
  version: FsVersion
  changes: FsLineChange[]
}

/**
 * The precondition of a guarded write. Omitting it means "create or overwrite unconditionally".
 * - `createIfAbsent`: publish only if nothing exists at the target at the publication point.
 * - `replaceIfVersion`: publish only if the target still exists at exactly this version; never recreates.
 */
export type FsWriteIntent =
  | { kind: 'createIfAbsent' }
  | { kind: 'replaceIfVersion'; version: FsVersion }

/**
 * What a caller of `writeText` or `editText` may hear before the call resolves, to overlap its
 * own work (rendering a reply) with the provider's last steps. Optional on both sides.
 */
export interface FsMutationHooks<O> {
  /**
   * Called at most once, with the outcome the call will resolve to, as soon as the new content is
   * published and the outcome known, while the provider may still be making it durable (the
   * directory's fsync). The call still resolves only after that, or rejects if it fails. A provider
   * may never call it; what the hook throws is ignored.
   */
  published?(outcome: O): void
}

/**
 * The optional methods without a default in the contract: a provider has each or not, and says
 * which in `FsCapabilities`. A new one is named here once; the capability type, the forwarding of
 * `ForwardingFileSystem` and the conformance suite's checks follow from this list.
 */
export const FS_OPTIONAL_METHODS = ['remove', 'rename'] as const

/** One of `FS_OPTIONAL_METHODS`. */
export type FsOptionalMethod = typeof FS_OPTIONAL_METHODS[number]

/**
 * The optional methods a provider has, declared once on it (`FileSystem.capabilities`): a caller
 * asks `ctx.fs.capabilities.remove` instead of probing for the method, and the conformance suite
 * checks that each declared method is there and each undeclared one is not.
 */
export type FsCapabilities = { readonly [M in FsOptionalMethod]: boolean }

/** The guard of an edit, a removal or a move: the file must still be at this version. */
export interface FsVersionGuard {
  version: FsVersion
}

/**
 * The options of `writeText`. Each is optional: `expected` omitted creates or overwrites,
 * `signal` aborts a call that has not published yet, `hooks` overlap the caller's work with the
 * provider's last steps.
 */
export interface FsWriteOptions {
  expected?: FsWriteIntent
  signal?: AbortSignal
  hooks?: FsMutationHooks<FsWriteOutcome>
  /** How an existing file that is not UTF-8 is read and written back; none: UTF-8 only. */
  decoding?: FsTextDecoding
}

/** The options of `editText` and `editTextMany`: as `FsWriteOptions`, with a version guard. */
export interface FsEditOptions {
  expected?: FsVersionGuard
  signal?: AbortSignal
  hooks?: FsMutationHooks<FsEditOutcome>
  /** How a file that is not UTF-8 is decoded and encoded back; none: UTF-8 only. */
  decoding?: FsTextDecoding
}

/** The options of `remove`: the target's version guard and an abort signal. */
export interface FsRemoveOptions {
  expected?: FsVersionGuard
  signal?: AbortSignal
}

/** The options of `rename`: the source's version guard and an abort signal. */
export type FsRenameOptions = FsRemoveOptions

export interface FsEditRequest {
  oldString: string
  newString: string
  replaceAll: boolean
}

export interface FsWriteOutcome {
  operation: 'create' | 'update'
  version: FsVersion
  /** Text before the write (null for a create, or when above the provider's diff bound). */
  before: string | null
  after: string
  /**
   * Set when the replaced file had other hard links: how many other names still lead to the old
   * bytes. A replacement is a new file published under the one name written, so that name is
   * detached from the others (which keep the old content) rather than changing a file that may
   * also be reached from elsewhere.
   */
  detachedLinks?: number
  /**
   * Set when the bytes were published under another key than the target's: a provider that named
   * a create's target by a guess (`resolveForMutation`) and found the path leading elsewhere, with
   * nothing there, created it where the path leads. Observations of the new file belong to this key.
   */
  target?: FsTarget
}

/**
 * One changed region of a text: lines `line` to `line + addedLines - 1` of the new text stand where
 * `removedLines` lines of the old text were (`addedLines` 0: the old lines were removed just before
 * new line `line`). Lines are counted as `cat -n` counts them; a CRLF and an LF end a line alike.
 */
export interface FsLineChange {
  line: number
  removedLines: number
  addedLines: number
}

export interface FsEditOutcome {
  version: FsVersion
  before: string | null
  after: string
  replacements: number
  /**
   * As in `FsWriteOutcome`: set when the replaced file had other hard links: how many other names still lead to the old
   * bytes. A replacement is a new file published under the one name written, so that name is
   * detached from the others (which keep the old content) rather than changing a file that may
   * also be reached from elsewhere.
   */
  detachedLinks?: number
  /**
   * Where the edit landed, computed from the matches (never by diffing the texts), so it is there
   * at any file size: the changed regions in order, replacements sharing a line forming one region,
   * the first `FS_MAX_LINE_CHANGES` only. Optional so that older providers still conform.
   */
  changes?: FsLineChange[]
  /** Lines added and removed over every region, also those past the bound of `changes`. */
  lineTotals?: { added: number; removed: number }
  /**
   * Set by `editTextMany`: per edit, in order, what it replaced and where it landed, in lines of the
   * final text (an edit whose lines a later edit rewrote spans the union of both). Optional so that
   * older providers still conform.
   */
  steps?: FsEditStep[]
}

/** One edit of an `editTextMany`: its replacements, and its changed regions in lines of the final text. */
export interface FsEditStep {
  replacements: number
  /** In order; empty when the edit changed no line (line endings only), at most `FS_MAX_LINE_CHANGES` over all steps. */
  changes: FsLineChange[]
}

/** What `remove` did: the version of the file it removed (the one the guard was checked against). */
export interface FsRemoveOutcome {
  version: FsVersion
}

/** What `rename` did: the version the moved file has at its destination (a move may change it, as its ctime moves). */
export interface FsRenameOutcome {
  version: FsVersion
}

export interface FsDirEntry {
  name: string
  type: FsEntryType
  target: FsTarget
  version?: FsVersion
  size?: number
}

/**
 * How much of a directory `listDir` looks at. Entries come in name order; a provider that honours
 * `limit` inspects only the entries it returns, so the cost of a listing follows what is shown.
 */
export interface FsListOptions {
  /** At most this many entries (the first in name order); the listing's `omitted` counts the rest. */
  limit?: number
  /** `false` leaves out names that start with `.` before anything else is done with them. Default `true`. */
  hidden?: boolean
}

/**
 * What `listDir` returns: the entries, and, when a `limit` cut the listing, how many more entries
 * there are. A plain array is a listing that nothing was cut from (or whose provider ignores the
 * options, in which case the caller cuts it).
 */
export type FsDirListing = FsDirEntry[] & { omitted?: number }

export interface FsResolveOptions {
  cwd?: string
  signal?: AbortSignal
}

/** Options of `FileSystem.streamBytesFrom`. */
export interface FsStreamFromOptions {
  /** The version the caller found the resume point at: a file at another version fails `FS_STALE_VERSION`. */
  version?: FsVersion
  signal?: AbortSignal
}

export interface FsInspectOptions extends FsResolveOptions {
  /** Also return the text when the target is a regular file of at most this many bytes. */
  textUpTo?: number
  /**
   * `'bytes'`: answer the file's raw bytes (`bytes`, BOM included, never decoded) instead of its
   * text, within the same `textUpTo` bound: what a reader of an image or a PDF asks for, in the
   * same one step. Default `'text'`.
   */
  as?: 'text' | 'bytes'
  /** How the text of a file that is not UTF-8 is decoded; none: UTF-8 only. */
  decoding?: FsTextDecoding
}

/** Options of `readText` (a bare `AbortSignal` is still accepted there, as its `signal`). */
export interface FsReadOptions {
  signal?: AbortSignal
  /** How a file that is not UTF-8 is decoded; none: UTF-8 only. */
  decoding?: FsTextDecoding
}

/** What `inspect` found at a path: its target, its metadata (`undefined` = nothing there) and, when asked for, its text. */
export interface FsInspection {
  target: FsTarget
  info: FsInfo | undefined
  /** The text of exactly the version `info` names; set only for a regular file within `textUpTo`. */
  text?: string
  /** Instead of `text`, with `as: 'bytes'`: the raw bytes of exactly the version `info` names. */
  bytes?: Uint8Array
}
