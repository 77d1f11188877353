import type { FsErrorCode } from '@deepseek-ai/dsh-fs'

/**
 * The exit codes of the control scripts: the only channel by which the sandbox tells the provider
 * why an operation failed. They sit above the codes the tools themselves use (1, 2, 126, 127) and
 * below the signal range (128+), so a status is never confused with a crashed tool.
 */
export const STATUS = {
  /** Nothing exists at the path (or a parent is missing). */
  ABSENT: 80,
  /** The path is a symlink whose target does not exist. */
  DANGLING: 81,
  /** A directory, FIFO, socket or device where a regular file is needed. */
  NOT_REGULAR: 82,
  /** A path component is not a directory, or a directory operation met a file. */
  NOT_DIRECTORY: 83,
  /** The compare-and-swap saw another version (or no file) at the target. */
  STALE: 84,
  /** A guarded create found a regular file already published at the target. */
  EXISTS: 85,
  DENIED: 86,
  /** The per-directory lock stayed held by another writer for too long. */
  BUSY: 87,
  /** A tool the scripts need (stat, flock, ln, base64, …) is missing from the sandbox. */
  MISSING_TOOL: 88,
  /** A replace refused: the target has no write permission (for anyone, or for the sandbox user). */
  READ_ONLY: 89,
  /** A replace refused: the target belongs to another user or group that a replacement cannot keep. */
  NOT_OWNER: 90,
  /** A replace refused: the target's mode, ACL or extended attributes could not be copied to the replacement. */
  ATTRIBUTES: 91,
  /** A replace refused: the target is a mount point (a file mounted over the path), which no rename can replace. */
  MOUNTED: 92,
  /** A mutation refused: the path no longer leads to the key the provider named for it. */
  MOVED: 93,
  /** A move refused: its destination is occupied by something other than a regular file. */
  TAKEN: 94,
} as const

export type StatusName = keyof typeof STATUS

const byCode = new Map<number, StatusName>(Object.entries(STATUS).map(([name, code]) => [code, name as StatusName]))

/** The status a script's exit code stands for; `undefined` for 0 and for codes outside the table. */
export function statusOf(exitCode: number): StatusName | undefined {
  return byCode.get(exitCode)
}

/** The default meaning of each status; operations override the few that mean something else to them. */
export const STATUS_CODES: Record<StatusName, FsErrorCode> = {
  ABSENT: 'FS_NOT_FOUND',
  DANGLING: 'FS_NOT_FOUND',
  NOT_REGULAR: 'FS_NOT_REGULAR_FILE',
  NOT_DIRECTORY: 'FS_NOT_DIRECTORY',
  STALE: 'FS_STALE_VERSION',
  EXISTS: 'FS_NOT_OBSERVED',
  DENIED: 'FS_PERMISSION_DENIED',
  BUSY: 'FS_IO_ERROR',
  MISSING_TOOL: 'FS_IO_ERROR',
  READ_ONLY: 'FS_PERMISSION_DENIED',
  NOT_OWNER: 'FS_PERMISSION_DENIED',
  ATTRIBUTES: 'FS_PERMISSION_DENIED',
  MOUNTED: 'FS_PERMISSION_DENIED',
  MOVED: 'FS_STALE_VERSION',
  TAKEN: 'FS_NOT_REGULAR_FILE',
}

/** Shell assignments that give the scripts the same table (`ABSENT=80 …`), so it is written once. */
export function statusAssignments(): string {
  return Object.entries(STATUS).map(([name, code]) => `${name}=${code}`).join(' ')
}
