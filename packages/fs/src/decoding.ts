import type { FsTextEncoding } from './encodings'
import type { FsReadOptions } from './types'

/**
 * How a caller wants a file that is not UTF-8 decoded: passed as `decoding` in the options of the
 * call that reads, edits or writes it, and by a provider to the kit helper that decodes (`decodeText`,
 * `planWrite`, `planEdit`, `planEdits`). Without one (the default), text is UTF-8 only and anything
 * else fails `FS_NOT_TEXT`, as it always did. A BOM and valid UTF-8 always decide first; these apply
 * only to bytes that are neither. An explicit option, not an async context: an `AsyncLocalStorage`
 * would make Node track every promise of the process once it ran.
 */
export interface FsTextDecoding {
  /** The encoding the caller names for the file: used as is, never second-guessed by the detector. */
  encoding?: FsTextEncoding
  /** Ask the detector (`detectEncoding`); a guess below its confidence bound is not taken. */
  detect?: boolean
  /** The encoding to assume when the detector cannot decide (or is not asked). */
  fallback?: FsTextEncoding
  /** Filled in by the decoder, on this same object: the legacy encoding the last file decoded with it turned out to be in. */
  decided?: FsTextEncoding
}

/**
 * The options of a `readText` call: a bare `AbortSignal` (the form before `FsReadOptions`) is its
 * `signal`. For a provider, which must accept both.
 */
export function readOptionsOf(opts: FsReadOptions | AbortSignal | undefined): FsReadOptions {
  if (opts === undefined) return {}
  return opts instanceof AbortSignal ? { signal: opts } : opts
}
