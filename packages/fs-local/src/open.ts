import { type FsError, fsError } from '@deepseek-ai/dsh-fs'
import { describeEntry } from '@deepseek-ai/dsh-fs/kit'
import * as fs from 'node:fs'
import type { Calls, Descriptor } from './calls'
import { closeOnFailure, ifMissing } from './errors'
import { infoOf } from './probe'

export interface OpenedFile {
  handle: Descriptor
  stats: fs.BigIntStats
  /** Where the bytes really are (the kernel's name for the descriptor). */
  real: string
}

// O_NONBLOCK: a FIFO opens at once, not when a writer comes. O_NOCTTY: no terminal becomes ours.
export const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY

/** Refuses what is not a regular file, naming what it is in the contract's words. */
function notRegular(path: string, stats: fs.BigIntStats): FsError {
  return fsError('FS_NOT_REGULAR_FILE', { path, entry: describeEntry(infoOf(stats)) })
}

export interface OpenHints {
  /** A `stat`/`lstat` of `path` taken just before, not taken again. */
  checked?: fs.BigIntStats
  /** Where the file is, when `path` is a name in an anchored directory (opened `O_NOFOLLOW`, so it leads nowhere else). */
  real?: string
}

/** Opens a regular file for reading, never blocking on a special file (refused by the `stat` before, or the descriptor's `fstat`). */
export async function openRegular(calls: Calls, path: string, display: string, hints: OpenHints = {}): Promise<OpenedFile> {
  const before = hints.checked ?? await calls.stat(path, { bigint: true })
  if (!before.isFile()) throw notRegular(display, before)
  const flags = hints.real === undefined ? READ_FLAGS : READ_FLAGS | fs.constants.O_NOFOLLOW
  const handle = await calls.open(path, flags)
  return closeOnFailure(() => handle.close(), async () => {
    const [stats, real] = await Promise.all([handle.stat(), hints.real ?? descriptorPath(calls, handle, path)])
    if (!stats.isFile()) throw notRegular(display, stats)
    return { handle, stats, real }
  })
}

/** The real path of an open descriptor from `/proc/self/fd` (what we hold, whatever was swapped since); elsewhere the realpath of its name. */
export async function descriptorPath(calls: Calls, descriptor: { fd: number }, path: string): Promise<string> {
  const real = await calls.readlink(`/proc/self/fd/${descriptor.fd}`).catch(ifMissing)
  return real?.startsWith('/') && !real.endsWith(' (deleted)') ? real : calls.realpath(path)
}
