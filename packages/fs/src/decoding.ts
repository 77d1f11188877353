import { AsyncLocalStorage } from 'node:async_hooks'
import type { FsTextEncoding } from './encodings'

/**
 * How a caller wants a file that is not UTF-8 decoded. Without one in effect (the default), text is
 * UTF-8 only and anything else fails `FS_NOT_TEXT`, as it always did. A BOM and valid UTF-8 always
 * decide first; these apply only to bytes that are neither.
 */
export interface FsTextDecoding {
  /** The encoding the caller names for the file: used as is, never second-guessed by the detector. */
  encoding?: FsTextEncoding
  /** Ask the detector (`detectEncoding`); a guess below its confidence bound is not taken. */
  detect?: boolean
  /** The encoding to assume when the detector cannot decide (or is not asked). */
  fallback?: FsTextEncoding
  /** Filled in by the decoder: the legacy encoding the last file decoded in this call turned out to be in. */
  decided?: FsTextEncoding
}

// The decoding travels with the call, not through every provider method: providers decode in the
// kit (`decodeText`, `planEdit`), in the caller's async context, so a tool's choice reaches the
// decoder on every backend without each provider's signatures carrying it.
// One store per process, found through a registry-wide symbol: a tool and a provider that load two
// copies of this package (built and source) still share it, as `FsError.is` does.
const slot = Symbol.for('@deepseek-ai/dsh-fs/text-decoding')
const registry = globalThis as { [slot]?: AsyncLocalStorage<FsTextDecoding> }
const current = (registry[slot] ??= new AsyncLocalStorage<FsTextDecoding>())

/** Runs `task` with `decoding` in effect for every file the filesystem decodes or encodes during it. */
export function withTextDecoding<T>(decoding: FsTextDecoding, task: () => T): T {
  return current.run(decoding, task)
}

/** The decoding in effect, if any. */
export function currentTextDecoding(): FsTextDecoding | undefined {
  return current.getStore()
}
