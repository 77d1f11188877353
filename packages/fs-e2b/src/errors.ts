import { FsError, type FsErrorCode } from '@deepseek-ai/dsh-fs'
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
    return new FsError('FS_ABORTED', `operation aborted: ${path}`, { cause: signal?.reason ?? error, path })
  }
  const [code, what] = classify(error)
  const detail = error instanceof Error ? `: ${error.message}` : ''
  return new FsError(code, `${what} (${path})${detail}`, { cause: error, path })
}

function classify(error: unknown): [FsErrorCode, string] {
  if (error instanceof FileNotFoundError) return ['FS_NOT_FOUND', 'not found in the sandbox']
  if (error instanceof InvalidArgumentError) return ['FS_INVALID_PATH', 'the sandbox rejected the path']
  if (error instanceof AuthenticationError) return ['FS_PERMISSION_DENIED', 'the sandbox refused the credentials']
  if (error instanceof NotEnoughSpaceError) return ['FS_IO_ERROR', 'the sandbox is out of disk space']
  if (error instanceof TimeoutError) return ['FS_IO_ERROR', 'the sandbox did not answer in time']
  if (error instanceof SandboxError) return ['FS_IO_ERROR', 'the sandbox reported an error']
  return ['FS_IO_ERROR', 'the sandbox could not be reached']
}

const MESSAGES: Record<StatusName, string> = {
  ABSENT: 'does not exist',
  DANGLING: 'is a symlink to nothing',
  NOT_REGULAR: 'is not a regular file',
  NOT_DIRECTORY: 'is not under a directory it can be reached through',
  STALE: 'has changed since it was read',
  EXISTS: 'already exists',
  DENIED: 'is not accessible to the sandbox user',
  BUSY: 'is locked by another writer',
  MISSING_TOOL: 'cannot be handled: the sandbox lacks a tool the provider needs (stat, ln, flock, …)',
  READ_ONLY: 'is read-only (no write permission); nothing was written (make it writable first, e.g. chmod u+w, if it should change)',
  NOT_OWNER: 'belongs to another user or group, which a replacement cannot keep; nothing was written (only its owner or root may change it)',
  ATTRIBUTES: 'has an ACL or extended attributes that could not be copied to a replacement; nothing was written',
  MOUNTED: 'is a mount point (a file mounted over this path), so it cannot be replaced atomically; nothing was written. Change the mounted file at its source instead',
  MOVED: 'now leads to a different file than the one it named when it was looked up; nothing was written',
}

/**
 * The error a failed control script stands for. `overrides` re-reads the statuses whose meaning
 * depends on the operation (an absent target is "not found" to a reader but "stale" to an edit).
 */
export function statusError(result: ControlResult, path: string, overrides: Partial<Record<StatusName, FsErrorCode>> = {}): FsError {
  const status = statusOf(result.exitCode)
  if (status === undefined) {
    const stderr = result.stderr.trim().slice(0, 500)
    return new FsError('FS_IO_ERROR', `${path}: sandbox command failed with exit code ${result.exitCode}${stderr ? `: ${stderr}` : ''}`, { path })
  }
  return new FsError(overrides[status] ?? STATUS_CODES[status], `${path} ${MESSAGES[status]}`, { path })
}
