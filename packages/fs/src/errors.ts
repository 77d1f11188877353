import { describeCharacter } from './encodable'
import type { FsSeenLines } from './types'

export const FS_ERROR_CODES = [
  'FS_NOT_FOUND',
  'FS_NOT_DIRECTORY',
  'FS_NOT_REGULAR_FILE',
  'FS_NOT_TEXT',
  'FS_TOO_LARGE',
  'FS_PERMISSION_DENIED',
  'FS_OUTSIDE_ROOT',
  'FS_INVALID_PATH',
  'FS_IO_ERROR',
  'FS_STALE_VERSION',
  'FS_NOT_OBSERVED',
  'FS_EDIT_NOT_FOUND',
  'FS_AMBIGUOUS_EDIT',
  'FS_ABORTED',
  'FS_INVALID_PATTERN',
  'FS_NOT_SEEN',
  'FS_NOT_ENCODABLE',
] as const

export type FsErrorCode = (typeof FS_ERROR_CODES)[number]

// A registry-wide symbol, so that `FsError.is` recognises errors minted by another copy of this package.
const marker = Symbol.for('@deepseek-ai/dsh-fs/FsError')

/** Where an ambiguous `old_string` occurs (on `FS_AMBIGUOUS_EDIT`). */
export interface FsOccurrences {
  /** How many times it occurs (non-overlapping, as a `replaceAll` would replace). */
  count: number
  /** The distinct 1-based lines on which occurrences start, ascending; at most `FS_MAX_OCCURRENCE_LINES`. */
  lines: number[]
  /** More lines hold occurrences than `lines` lists. */
  truncated: boolean
}

/**
 * A fact about the target that a refusal rests on, for the tool layer to word: `read-only` is a
 * file no one may write (`chmod a-w`), which dsh does not replace, move or remove.
 */
export type FsErrorFact = 'read-only'

export interface FsErrorOptions {
  cause?: unknown
  /** The path the failure is about, as the caller spelled it or as displayed. */
  path?: string
  occurrences?: FsOccurrences
  /** Set on `FS_NOT_SEEN`: what the session was shown of the version it would replace. */
  seen?: FsSeenLines
  fact?: FsErrorFact
  /**
   * Set on an `FS_NOT_TEXT` whose encoding could not be decided: the encodings the file might be
   * in, most likely first (possibly none), so that a caller can name one to choose.
   */
  candidates?: FsEncodingCandidate[]
  /** Set on `FS_NOT_ENCODABLE`: the character the file's encoding cannot hold, and where. */
  unencodable?: FsUnencodable
}

/** An encoding a file might be in, with the detector's confidence (0–100). */
export interface FsEncodingCandidate {
  encoding: string
  confidence: number
}

/** What `FS_NOT_ENCODABLE` refused: `character` at `line`/`column` (1-based, of the new text) has no bytes in `encoding`. */
export interface FsUnencodable {
  encoding: string
  character: string
  line: number
  column: number
}

export class FsError extends Error {
  override readonly name = 'FsError'
  readonly code: FsErrorCode
  readonly path?: string
  /** Set on `FS_AMBIGUOUS_EDIT`: where the matches are, so no caller has to search the file again. */
  readonly occurrences?: FsOccurrences
  /** Set on `FS_NOT_SEEN`: the lines seen, so the refusal can name them and the first one not seen. */
  readonly seen?: FsSeenLines
  /** What the refusal rests on, when a provider knows it (see `FsErrorFact`). */
  readonly fact?: FsErrorFact
  /** Set on an undecided `FS_NOT_TEXT`: the encodings to choose from. */
  readonly candidates?: FsEncodingCandidate[]
  /** Set on `FS_NOT_ENCODABLE`. */
  readonly unencodable?: FsUnencodable
  readonly [marker] = true

  constructor(code: FsErrorCode, message: string, options: FsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    if (options.path !== undefined) this.path = options.path
    if (options.occurrences !== undefined) this.occurrences = options.occurrences
    if (options.seen !== undefined) this.seen = options.seen
    if (options.fact !== undefined) this.fact = options.fact
    if (options.candidates !== undefined) this.candidates = options.candidates
    if (options.unencodable !== undefined) this.unencodable = options.unencodable
  }

  static is(value: unknown, code?: FsErrorCode): value is FsError {
    if (typeof value !== 'object' || value === null || (value as Record<symbol, unknown>)[marker] !== true) return false
    return code === undefined || (value as FsError).code === code
  }
}

/**
 * What `fsError` builds a message from. The path is given once; the message map below phrases the
 * code around it, so each phrase ("not a regular file", "has changed since it was read") exists once.
 */
export interface FsErrorDetails extends FsErrorOptions {
  /**
   * What is said of the path instead of the code's own phrase ("is read-only; nothing was
   * written", "kept changing while it was read"). For `FS_NOT_TEXT` and `FS_INVALID_PATH` it says
   * why, after the code's phrase; for `FS_ABORTED`, what was being waited for ("while waiting for memory").
   */
  reason?: string
  /** `FS_NOT_REGULAR_FILE`: what is there instead ("a directory", see `describeEntry`). */
  entry?: string
  /** `FS_NOT_DIRECTORY`: the ancestor that is not a directory, so the path cannot be created. */
  parent?: string
  /** `FS_STALE_VERSION`: the file that was seen is gone, not merely changed. */
  gone?: boolean
  /** `FS_OUTSIDE_ROOT`: the containment root. */
  root?: string
}

const tail = (reason: string | undefined, separator = ': ') => (reason === undefined ? '' : `${separator}${reason}`)

/** One message per code. `s` is the path, or "the file" where none was given. */
const MESSAGES: { [C in FsErrorCode]: (s: string, d: FsErrorDetails) => string } = {
  FS_NOT_FOUND: (s, d) => `${s} ${d.reason ?? 'does not exist'}`,
  FS_NOT_DIRECTORY: (s, d) => (d.parent === undefined ? `${s} ${d.reason ?? 'is not a directory'}` : `${s} cannot be created: ${d.parent} is not a directory`),
  FS_NOT_REGULAR_FILE: (s, d) => `${s} ${d.entry === undefined ? 'is not a regular file' : `is ${d.entry}, not a regular file`}`,
  FS_NOT_TEXT: (s, d) => `${s} is not UTF-8 text${tail(d.reason)}`,
  FS_TOO_LARGE: (s, d) => `${s} ${d.reason ?? 'is too large'}`,
  FS_PERMISSION_DENIED: (s, d) => `${s} ${d.reason ?? (d.fact === 'read-only' ? 'is read-only' : 'is not accessible')}`,
  FS_OUTSIDE_ROOT: (s, d) => `${s} is outside the root${tail(d.root, ' ')}; only paths inside it can be used`,
  FS_INVALID_PATH: (_s, d) => `invalid path ${JSON.stringify(d.path ?? '')}${tail(d.reason)}`,
  FS_IO_ERROR: (s, d) => (d.path === undefined ? (d.reason ?? 'input/output error') : `${s} ${d.reason ?? 'could not be read or written'}`),
  FS_STALE_VERSION: (s, d) => `${s} ${d.reason ?? (d.gone ? 'no longer exists' : 'has changed since it was read')}`,
  FS_NOT_OBSERVED: (s) => `${s} already exists`,
  FS_EDIT_NOT_FOUND: (s, d) => `old_string ${d.reason ?? 'was not found'} in ${s}`,
  FS_AMBIGUOUS_EDIT: (s, d) => {
    if (d.occurrences === undefined) return `old_string occurs more than once in ${s}`
    const { count, lines, truncated } = d.occurrences
    // Each line once: two matches on one line are "all on line 1", never "lines 1, 1".
    const where = lines.length === 1 && !truncated
      ? `all on line ${lines[0]}`
      : `lines ${lines.slice(0, 10).join(', ')}${lines.length > 10 || truncated ? ', …' : ''}`
    return `old_string occurs ${count} times in ${s} (${where})`
  },
  FS_ABORTED: (_s, d) => `operation aborted${tail(d.reason, ' ')}${tail(d.path)}`,
  FS_INVALID_PATTERN: (_s, d) => d.reason ?? 'invalid pattern',
  FS_NOT_SEEN: (s, d) => `${s} ${d.reason ?? 'has lines this session was not shown'}`,
  FS_NOT_ENCODABLE: (s, d) => d.unencodable === undefined
    ? `${s} cannot hold the new text in its encoding; nothing was written`
    : `${s} is in ${d.unencodable.encoding}, which has no ${describeCharacter(d.unencodable.character)} `
      + `(line ${d.unencodable.line}, column ${d.unencodable.column} of the new text); nothing was written`,
}

/** An `FsError` whose message is rendered from its code: `fsError('FS_NOT_FOUND', { path })`. */
export function fsError(code: FsErrorCode, details: FsErrorDetails = {}): FsError {
  const { cause, path, occurrences, seen, candidates, unencodable, fact } = details
  return new FsError(code, MESSAGES[code](path ?? 'the file', details), { cause, path, occurrences, seen, candidates, unencodable, fact })
}

/**
 * The failure of one step of `editTextMany`: the code the step alone would have failed with, and
 * `editIndex`, its 0-based position in the list. Nothing was written.
 */
export class FsEditStepError extends FsError {
  readonly editIndex: number

  constructor(code: FsErrorCode, message: string, editIndex: number, options: { cause?: unknown; path?: string; occurrences?: FsOccurrences } = {}) {
    super(code, message, options)
    this.editIndex = editIndex
  }
}

/** The `editIndex` of a failed multi-edit step, also for errors minted by another copy of this package. */
export function editIndexOf(error: unknown): number | undefined {
  if (!FsError.is(error)) return undefined
  const index = (error as { editIndex?: unknown }).editIndex
  return typeof index === 'number' ? index : undefined
}

/** Throws `FS_ABORTED` if the signal has fired. Providers call it before every step that changes state. */
export function throwIfAborted(signal: AbortSignal | undefined, path?: string): void {
  if (signal?.aborted) throw fsError('FS_ABORTED', { cause: signal.reason, path })
}
