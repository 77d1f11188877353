import { FsError, type FsErrorCode, type FsErrorDetails, fsError } from '@deepseek-ai/dsh-fs'
import {
  AuthenticationError, FileNotFoundError, InvalidArgumentError, NotEnoughSpaceError, SandboxError, TimeoutError,
} from 'e2b'
import type { ControlResult } from './shell'
import { STATUS_CODES, type StatusName, statusOf } from './status'

/**
 * The one place an SDK failure becomes an `FsError`: by the error's class, never its message.
 * An abort is recognised by the caller's signal first, because the SDK reports a cancelled fetch
 * in more than one shape.
 */
export function toFsError(error: unknown, path: string, signal?: AbortSignal): FsError {
  if (FsError.is(error)) return error
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
    return fsError('FS_ABORTED', { cause: signal?.reason ?? error, path })
  }
  const [code, what] = classify(error)
  const detail = error instanceof Error ? `: ${error.message}` : ''
  return fsError(code, { cause: error, path, reason: `${what}${detail}` })
}

/** The code of an SDK failure, and what is said of the path (the `reason` of `fsError`). */
function classify(error: unknown): [FsErrorCode, string] {
  if (error instanceof FileNotFoundError) return ['FS_NOT_FOUND', 'was not found in the sandbox']
  if (error instanceof InvalidArgumentError) return ['FS_INVALID_PATH', 'the sandbox rejected it']
  if (error instanceof AuthenticationError) return ['FS_PERMISSION_DENIED', 'is not accessible: the sandbox refused the credentials']
  if (error instanceof NotEnoughSpaceError) return ['FS_IO_ERROR', 'could not be written: the sandbox is out of disk space']
  if (error instanceof TimeoutError) return ['FS_IO_ERROR', 'is unavailable: the sandbox did not answer in time']
  if (error instanceof SandboxError) return ['FS_IO_ERROR', 'is unavailable: the sandbox reported an error']
  return ['FS_IO_ERROR', 'is unavailable: the sandbox could not be reached']
}

/**
 * What each status says beyond its code, as `fsError` details: phrased so that it reads right under
 * the status's own code and under the codes `overrides` may give it.
 */
const DETAILS: Record<StatusName, Omit<FsErrorDetails, 'path'>> = {
  ABSENT: { reason: 'does not exist' },
  DANGLING: { reason: 'is a symlink to nothing', entry: 'a symlink to nothing' },
  NOT_REGULAR: {},
  NOT_DIRECTORY: { reason: 'is not under a directory it can be reached through' },
  STALE: {},
  EXISTS: {},
  DENIED: { reason: 'is not accessible to the sandbox user' },
  BUSY: { reason: 'is locked by another writer' },
  MISSING_TOOL: { reason: 'cannot be handled: the sandbox lacks a tool the provider needs (stat, ln, flock, …)' },
  READ_ONLY: { fact: 'read-only', reason: 'is read-only (no write permission); nothing was written' },
  NOT_OWNER: { reason: 'belongs to another user or group, which a replacement cannot keep; nothing was written (only its owner or root may change it)' },
  ATTRIBUTES: { reason: 'has an ACL or extended attributes that could not be copied to a replacement; nothing was written' },
  MOUNTED: {
    reason: 'is a mount point (a file mounted over this path), so it cannot be replaced atomically; nothing was written. Change the mounted file at its source instead',
  },
  MOVED: { reason: 'now leads to a different file than the one it named when it was looked up; nothing was written' },
  TAKEN: { entry: 'occupied by something other than a regular file' },
}

/**
 * The error a failed control script stands for. `overrides` re-reads the statuses whose meaning
 * depends on the operation (an absent target is "not found" to a reader but "stale" to an edit).
 */
export function statusError(result: ControlResult, path: string, overrides: Partial<Record<StatusName, FsErrorCode>> = {}): FsError {
  const status = statusOf(result.exitCode)
  if (status === undefined) {
    const stderr = result.stderr.trim().slice(0, 500)
    return fsError('FS_IO_ERROR', { path, reason: `could not be handled: the sandbox command failed with exit code ${result.exitCode}${stderr ? `: ${stderr}` : ''}` })
  }
  return fsError(overrides[status] ?? STATUS_CODES[status], { path, ...DETAILS[status] })
}
