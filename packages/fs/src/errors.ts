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

export interface FsErrorOptions {
  cause?: unknown
  /** The path the failure is about, as the caller spelled it or as displayed. */
  path?: string
  occurrences?: FsOccurrences
}

export class FsError extends Error {
  override readonly name = 'FsError'
  readonly code: FsErrorCode
  readonly path?: string
  /** Set on `FS_AMBIGUOUS_EDIT`: where the matches are, so no caller has to search the file again. */
  readonly occurrences?: FsOccurrences
  readonly [marker] = true

  constructor(code: FsErrorCode, message: string, options: FsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    if (options.path !== undefined) this.path = options.path
    if (options.occurrences !== undefined) this.occurrences = options.occurrences
  }

  static is(value: unknown, code?: FsErrorCode): value is FsError {
    if (typeof value !== 'object' || value === null || (value as Record<symbol, unknown>)[marker] !== true) return false
    return code === undefined || (value as FsError).code === code
  }
}

/** Throws `FS_ABORTED` if the signal has fired. Providers call it before every step that changes state. */
export function throwIfAborted(signal: AbortSignal | undefined, path?: string): void {
  if (signal?.aborted) {
    throw new FsError('FS_ABORTED', `operation aborted${path === undefined ? '' : `: ${path}`}`, { cause: signal.reason, path })
  }
}
