import { FsError, type FsErrorCode } from '@deepseek-ai/dsh-fs'

/** The operation a failure happened in, for the message only. */
export type LocalOp = 'resolve' | 'stat' | 'read' | 'list' | 'write' | 'edit' | 'remove' | 'move'

// One table from errno (and Node's own argument errors) to contract codes. Codes are never guessed
// from message text: anything not listed is an I/O error that keeps the original as its cause.
const ERRNO_CODES: Record<string, FsErrorCode> = {
  ENOENT: 'FS_NOT_FOUND',
  ENOTDIR: 'FS_NOT_DIRECTORY',
  EISDIR: 'FS_NOT_REGULAR_FILE',
  // Opening a socket, or a FIFO for writing with no reader, or a device without a driver.
  ENXIO: 'FS_NOT_REGULAR_FILE',
  ENODEV: 'FS_NOT_REGULAR_FILE',
  EOPNOTSUPP: 'FS_NOT_REGULAR_FILE',
  EACCES: 'FS_PERMISSION_DENIED',
  EPERM: 'FS_PERMISSION_DENIED',
  EROFS: 'FS_PERMISSION_DENIED',
  ENAMETOOLONG: 'FS_INVALID_PATH',
  ELOOP: 'FS_INVALID_PATH',
  EINVAL: 'FS_INVALID_PATH',
  EILSEQ: 'FS_INVALID_PATH',
  ERR_INVALID_ARG_VALUE: 'FS_INVALID_PATH',
  ERR_INVALID_ARG_TYPE: 'FS_INVALID_PATH',
  EFBIG: 'FS_TOO_LARGE',
  ERR_FS_FILE_TOO_LARGE: 'FS_TOO_LARGE',
  ERR_STRING_TOO_LONG: 'FS_TOO_LARGE',
  ABORT_ERR: 'FS_ABORTED',
  ENOSPC: 'FS_IO_ERROR',
  EDQUOT: 'FS_IO_ERROR',
  EIO: 'FS_IO_ERROR',
  EMFILE: 'FS_IO_ERROR',
  ENFILE: 'FS_IO_ERROR',
  ENOMEM: 'FS_IO_ERROR',
  EXDEV: 'FS_IO_ERROR',
  EBUSY: 'FS_IO_ERROR',
  ETXTBSY: 'FS_IO_ERROR',
  EAGAIN: 'FS_IO_ERROR',
  ESTALE: 'FS_IO_ERROR',
  EMLINK: 'FS_IO_ERROR',
  ENOTEMPTY: 'FS_IO_ERROR',
  EEXIST: 'FS_IO_ERROR',
}

export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** The contract code for a raw error, or `FS_IO_ERROR` for anything unknown. */
export function codeFor(error: unknown): FsErrorCode {
  return ERRNO_CODES[errnoCode(error) ?? ''] ?? 'FS_IO_ERROR'
}

const DESCRIPTIONS: Record<FsErrorCode, string> = {
  FS_NOT_FOUND: 'does not exist',
  FS_NOT_DIRECTORY: 'has a path component that is not a directory',
  FS_NOT_REGULAR_FILE: 'is not a regular file',
  FS_NOT_TEXT: 'is not UTF-8 text',
  FS_TOO_LARGE: 'is too large',
  FS_PERMISSION_DENIED: 'permission denied',
  FS_OUTSIDE_ROOT: 'is outside the root',
  FS_INVALID_PATH: 'is not a valid path',
  FS_IO_ERROR: 'I/O error',
  FS_STALE_VERSION: 'has changed',
  FS_NOT_OBSERVED: 'already exists',
  FS_EDIT_NOT_FOUND: 'edit not found',
  FS_AMBIGUOUS_EDIT: 'edit is ambiguous',
  FS_ABORTED: 'operation aborted',
  FS_INVALID_PATTERN: 'invalid pattern',
  FS_NOT_SEEN: 'has lines not seen',
  FS_NOT_ENCODABLE: 'cannot hold the new text in its encoding',
}

/**
 * Turns anything thrown by Node's fs into an `FsError`. An `FsError` passes through untouched, so
 * callers can wrap whole operations without re-coding the errors they raised themselves.
 */
export function toFsError(error: unknown, op: LocalOp, path: string): FsError {
  if (FsError.is(error)) return error
  const code = codeFor(error)
  const errno = errnoCode(error)
  return new FsError(code, `${op} ${path}: ${DESCRIPTIONS[code]}${errno ? ` (${errno})` : ''}`, { cause: error, path })
}

/** Runs `task` and re-throws any failure as an `FsError`. */
export async function mapErrors<T>(op: LocalOp, path: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task()
  } catch (error) {
    throw toFsError(error, op, path)
  }
}
