import { FsError, type FsErrorCode, fsError } from '@deepseek-ai/dsh-fs'
import { throwIfAborted } from '@deepseek-ai/dsh-fs/kit'

/** The operation a failure happened in, for the message only. */
export type LocalOp = 'resolve' | 'stat' | 'read' | 'list' | 'write' | 'edit' | 'remove' | 'move'

// From errno (and Node's own argument errors) to contract codes, and what a message says of the path.
// Never guessed from message text: anything not listed is an I/O error (the original is its cause).
const GROUPS: [FsErrorCode, string, string][] = [
  ['FS_NOT_FOUND', 'does not exist', 'ENOENT'],
  ['FS_NOT_DIRECTORY', 'has a path component that is not a directory', 'ENOTDIR'],
  // ENXIO, ENODEV, EOPNOTSUPP: a socket, a FIFO opened for writing with no reader, a device without a driver.
  ['FS_NOT_REGULAR_FILE', 'is not a regular file', 'EISDIR ENXIO ENODEV EOPNOTSUPP'],
  ['FS_PERMISSION_DENIED', 'permission denied', 'EACCES EPERM EROFS'],
  ['FS_INVALID_PATH', 'is not a valid path', 'ENAMETOOLONG ELOOP EINVAL EILSEQ ERR_INVALID_ARG_VALUE ERR_INVALID_ARG_TYPE'],
  ['FS_TOO_LARGE', 'is too large', 'EFBIG ERR_FS_FILE_TOO_LARGE ERR_STRING_TOO_LONG'],
  ['FS_ABORTED', 'operation aborted', 'ABORT_ERR'],
]
const ERRNO_CODES: Readonly<Record<string, FsErrorCode>> = Object.fromEntries(GROUPS.flatMap(([code, , errnos]) => errnos.split(' ').map((errno) => [errno, code])))
const DESCRIPTIONS = new Map(GROUPS.map(([code, description]) => [code, description]))

export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** Nothing is at the path: it, or a component that should be a directory, is missing. */
export function isMissing(error: unknown): boolean {
  const code = errnoCode(error)
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** For `.catch`: `undefined` when nothing is at the path (`isMissing`), any other failure thrown again. */
export function ifMissing(error: unknown): undefined {
  if (isMissing(error)) return undefined
  throw error
}

export function codeFor(error: unknown): FsErrorCode {
  return ERRNO_CODES[errnoCode(error) ?? ''] ?? 'FS_IO_ERROR'
}

/** Anything Node's fs throws, as an `FsError` (one passes through, so whole operations can be wrapped); without `op`, in the contract's words. */
export function toFsError(error: unknown, op: LocalOp | undefined, path: string): FsError {
  if (FsError.is(error)) return error
  const code = codeFor(error)
  if (op === undefined) return fsError(code, { path, cause: error })
  const errno = errnoCode(error)
  return new FsError(code, `${op} ${path}: ${DESCRIPTIONS.get(code) ?? 'I/O error'}${errno ? ` (${errno})` : ''}`, { cause: error, path })
}

/** Both settled; the first failure in argument order is thrown (being outside the root is the answer before any other). */
export async function inOrder<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second])
  if (a.status === 'rejected') throw a.reason
  if (b.status === 'rejected') throw b.reason
  return [a.value, b.value]
}

/** Runs `task`, refused first if `signal` has fired, and re-throws any failure as an `FsError`. */
export async function mapErrors<T>(op: LocalOp | undefined, path: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    throwIfAborted(signal, path)
    return await task()
  } catch (error) {
    throw toFsError(error, op, path)
  }
}

/** `task`; if it fails, `close` runs first (its own failure ignored): what was opened for it is not left open. */
export async function closeOnFailure<T>(close: () => Promise<unknown> | undefined, task: () => Promise<T>): Promise<T> {
  try {
    return await task()
  } catch (error) {
    await close()?.catch(() => {})
    throw error
  }
}
