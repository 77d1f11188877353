import { readFileSync } from 'node:fs'
import { lstat, realpath, stat } from 'node:fs/promises'
import type { BigIntStats } from 'node:fs'
import { basename } from 'node:path'

/** The JSON form of `filesystem.EntryInfo` (proto3 JSON: lowerCamelCase, int64 as string). */
export interface EntryInfoJson {
  name: string
  type: FileTypeName
  path: string
  size: string
  mode: number
  permissions: string
  owner: string
  group: string
  modifiedTime: string
  symlinkTarget?: string
}

export type FileTypeName = 'FILE_TYPE_UNSPECIFIED' | 'FILE_TYPE_FILE' | 'FILE_TYPE_DIRECTORY' | 'FILE_TYPE_SYMLINK'

function typeOf(st: BigIntStats): FileTypeName {
  if (st.isFile()) return 'FILE_TYPE_FILE'
  if (st.isDirectory()) return 'FILE_TYPE_DIRECTORY'
  if (st.isSymbolicLink()) return 'FILE_TYPE_SYMLINK'
  // FIFOs, sockets and devices have no type on the wire; the SDK drops them from list().
  return 'FILE_TYPE_UNSPECIFIED'
}

/**
 * Describes `path` the way envd does: lstat first; a symlink reports its target's type and
 * permission bits plus the resolved target path, and a dangling one reports no type at all.
 * Size, mtime and the permission string stay those of the link itself.
 */
export async function entryInfo(path: string, names: IdNames): Promise<EntryInfoJson> {
  const own = await lstat(path, { bigint: true })
  let type = typeOf(own)
  let mode = Number(own.mode & 0o777n)
  let symlinkTarget: string | undefined
  if (own.isSymbolicLink()) {
    symlinkTarget = await realpath(path).catch(() => path)
    const target = await stat(symlinkTarget, { bigint: true }).catch(() => undefined)
    type = target ? typeOf(target) : 'FILE_TYPE_UNSPECIFIED'
    mode = target ? Number(target.mode & 0o777n) : 0
  }
  return {
    name: basename(path),
    type,
    path,
    size: own.size.toString(),
    mode,
    permissions: permissionString(own),
    owner: names.user(Number(own.uid)),
    group: names.group(Number(own.gid)),
    modifiedTime: rfc3339(own.mtimeNs),
    ...(symlinkTarget === undefined ? {} : { symlinkTarget }),
  }
}

/** A proto Timestamp in JSON: RFC 3339, UTC, nanosecond precision. */
export function rfc3339(ns: bigint): string {
  const seconds = ns / 1_000_000_000n
  const nanos = ns % 1_000_000_000n
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19)
  return `${whole}.${nanos.toString().padStart(9, '0')}Z`
}

// Go's FileMode.String(): type letters (or '-') followed by rwx triplets. Sandbox users see
// this text in `permissions`, so the emulator renders it the same way.
function permissionString(st: BigIntStats): string {
  const mode = Number(st.mode)
  let kind = ''
  if (st.isDirectory()) kind += 'd'
  if (st.isSymbolicLink()) kind += 'L'
  if (st.isBlockDevice()) kind += 'D'
  if (st.isCharacterDevice()) kind += 'Dc'
  if (st.isFIFO()) kind += 'p'
  if (st.isSocket()) kind += 'S'
  if (mode & 0o4000) kind += 'u'
  if (mode & 0o2000) kind += 'g'
  if (mode & 0o1000) kind += 't'
  const rwx = 'rwxrwxrwx'
  let bits = ''
  for (let i = 0; i < 9; i++) bits += mode & (1 << (8 - i)) ? rwx[i] : '-'
  return (kind || '-') + bits
}

/**
 * Owner and group travel as names when the system knows them, else as numbers (like envd). The
 * user and group databases are read once per emulator, on the first entry that needs them.
 */
export class IdNames {
  #users: Map<number, string> | undefined
  #groups: Map<number, string> | undefined

  user(uid: number): string {
    this.#users ??= table('/etc/passwd')
    return this.#users.get(uid) ?? String(uid)
  }

  group(gid: number): string {
    this.#groups ??= table('/etc/group')
    return this.#groups.get(gid) ?? String(gid)
  }
}

function table(file: string): Map<number, string> {
  const map = new Map<number, string>()
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const [name, , id] = line.split(':')
      if (name && id !== undefined && /^\d+$/.test(id)) map.set(Number(id), name)
    }
  } catch {
    // No database: every id stays numeric.
  }
  return map
}
