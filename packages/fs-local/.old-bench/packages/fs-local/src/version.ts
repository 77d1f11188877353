import type { FsEntryType, FsInfo, FsVersion } from '../../fs/src/index'
import type { BigIntStats } from 'node:fs'

/**
 * The version of an inode. mtime alone misses a same-size rewrite whose mtime was put back
 * (`touch -r`, `cp -p`, `rsync -t`), but ctime cannot be set from user space, and inode + dev catch
 * a replacement by rename. Nanosecond fields need BigInt stats: a double loses the low digits.
 */
export function versionOf(stats: BigIntStats): FsVersion {
  return `${stats.dev.toString(36)}.${stats.ino.toString(36)}.${stats.size.toString(36)}.${stats.mtimeNs.toString(36)}.${stats.ctimeNs.toString(36)}` as FsVersion
}

export function typeOf(stats: BigIntStats): FsEntryType {
  if (stats.isFile()) return 'file'
  if (stats.isDirectory()) return 'directory'
  return 'other'
}

export function infoOf(stats: BigIntStats): FsInfo {
  const type = typeOf(stats)
  const info: FsInfo = { version: versionOf(stats), type }
  if (type === 'file') info.size = Number(stats.size)
  if (type === 'other') info.special = stats.isFIFO() ? 'fifo' : stats.isSocket() ? 'socket' : 'device'
  return info
}
