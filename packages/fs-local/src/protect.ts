import { type FsError, fsError } from '@deepseek-ai/dsh-fs'
import { constants, type BigIntStats } from 'node:fs'
import { type Calls, INLINE_PATH_BYTES } from './calls'
import { codeFor, errnoCode } from './errors'
import { loadAddon } from './kernel-lock'

/*
 * Who may replace a file: a rename needs only the directory's write permission, so these rules refuse
 * what an in-place writer would be refused and keep who may read it (`2026-12-01-replace-permissions.md`).
 */

const EUID = process.geteuid?.()
const EGID = process.getegid?.()
const RUNNING_AS_ROOT = EUID === 0

type Xattr = { name: string; value: Buffer }

/** What the replaced file was, so the replacement is the same to everyone who looks at it. */
export interface Previous {
  mode: number
  uid: number
  gid: number
  /** Whether the replacement must take `gid` (we are not root, and the group is not ours). */
  chgrp: boolean
  /** `undefined` where extended attributes cannot be read (no addon for this platform). */
  xattrs: Xattr[] | undefined
}

// Node has no xattr calls. The addon's use the l* syscalls, so callers pass the regular file's own name.
const xattrApi = loadAddon<{
  listAttributes(path: string): Promise<string[]>
  listAttributesSync(path: string): string[]
  getAttribute(path: string, name: string): Promise<Buffer | null>
  getAttributeSync(path: string, name: string): Buffer | null
  setAttribute(path: string, name: string, value: Buffer): Promise<void>
}>('@napi-rs/xattr')

function denied(display: string, why: string, cause?: unknown): FsError {
  return fsError('FS_PERMISSION_DENIED', { path: display, reason: `${why}; nothing was written.`, cause })
}

/** Filesystems without extended attributes answer with one of these: the file simply has none. */
const NO_XATTRS = new Set(['ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

async function readXattrs(calls: Calls, path: string): Promise<Xattr[] | undefined> {
  if (xattrApi === undefined) return undefined
  // A lookup: inline where the others are (`calls.ts`).
  const inline = calls.inline && path.length <= INLINE_PATH_BYTES
  let names: string[]
  try {
    names = inline ? xattrApi.listAttributesSync(path) : await xattrApi.listAttributes(path)
  } catch (error) {
    if (NO_XATTRS.has(errnoCode(error) ?? '')) return []
    throw error
  }
  const values = inline ? names.map((name) => xattrApi.getAttributeSync(path, name)) : await Promise.all(names.map((name) => xattrApi.getAttribute(path, name)))
  return names.flatMap((name, i) => (values[i] === null ? [] : [{ name, value: values[i]! }]))
}

/** No write bit at all (`chmod a-w`) is the owner's "do not change": refused for every user, root included. Answers the mode. */
export function refuseReadOnly(stats: BigIntStats, display: string, verb: 'written' | 'changed'): number {
  const mode = Number(stats.mode) & 0o7777
  if ((mode & 0o222) !== 0) return mode
  throw fsError('FS_PERMISSION_DENIED', { path: display, fact: 'read-only', reason: `is read-only (mode ${mode.toString(8).padStart(4, '0')}); nothing was ${verb}` })
}

/**
 * What a replacement of `path` (in its anchored directory) must keep, or a refusal: read-only, or
 * (not root) not writable, not ours, or of a group we cannot give it while its group bits grant any.
 */
export async function checkReplaceable(calls: Calls, path: string, stats: BigIntStats, display: string): Promise<Previous> {
  const mode = refuseReadOnly(stats, display, 'written')
  const uid = Number(stats.uid)
  const gid = Number(stats.gid)
  let chgrp = false
  if (!RUNNING_AS_ROOT && EUID !== undefined) {
    await calls.access(path, constants.W_OK).catch((error: unknown) => {
      throw codeFor(error) === 'FS_PERMISSION_DENIED' ? denied(display, `is not writable by this user (uid ${EUID})`, error) : error
    })
    if (uid !== EUID) {
      throw denied(display, `is owned by uid ${uid}: a replacement would belong to uid ${EUID}, and only its owner or root may change it`)
    }
    if (gid !== EGID) {
      chgrp = true
      if ((mode & 0o070) !== 0 && !(process.getgroups?.() ?? []).includes(gid)) {
        throw denied(display, `belongs to group ${gid}, which this user is not in: a replacement would change who may read it`)
      }
    }
  }
  return { mode, uid, gid, chgrp, xattrs: await readXattrs(calls, path) }
}

/** Owner or group, then mode (a chown clears set-id bits), then xattrs of `previous` onto the staged file; what cannot be kept refuses. */
export async function applyPrevious(
  path: string, owner: { chown(uid: number, gid: number): Promise<void>; chmod(mode: number): Promise<void> }, previous: Previous, display: string,
  created?: { uid: number; gid: number; mode: number },
): Promise<void> {
  const sameOwner = created !== undefined && created.uid === previous.uid && created.gid === previous.gid
  if (RUNNING_AS_ROOT) {
    if (!sameOwner) await owner.chown(previous.uid, previous.gid)
  } else if (previous.chgrp && !sameOwner) {
    try {
      await owner.chown(-1, previous.gid)
    } catch (error) {
      if ((previous.mode & 0o070) !== 0) throw denied(display, `belongs to group ${previous.gid}, which a replacement cannot keep`, error)
    }
  }
  if (!sameOwner || created === undefined || (created.mode & 0o7777) !== previous.mode) await owner.chmod(previous.mode)
  for (const { name, value } of previous.xattrs ?? []) {
    try {
      // A label the new file got by itself (an SELinux context from its directory) need not be set.
      const own = await xattrApi!.getAttribute(path, name).catch(() => null)
      if (own !== null && own.equals(value)) continue
      await xattrApi!.setAttribute(path, name, value)
    } catch (error) {
      throw denied(display, `carries the extended attribute ${name}, which cannot be copied to a replacement (${errnoCode(error) ?? 'error'})`, error)
    }
  }
}
