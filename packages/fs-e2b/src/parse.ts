import { type FsEntryType, fsError, type FsInfo, type FsSpecialKind, type FsVersion } from '@deepseek-ai/dsh-fs'

/** A stat line of the scripts, read back: the version is the line's third field, kept verbatim. */
export function parseStatLine(line: string, path: string): FsInfo {
  const match = /^([0-9a-f]+) (\d+) (\d+:\d+:\d+:\d+\.\d+:\d+\.\d+)$/.exec(line.trim())
  if (!match) throw fsError('FS_IO_ERROR', { path, reason: `got unexpected stat output: ${JSON.stringify(line.slice(0, 200))}` })
  const mode = Number.parseInt(match[1]!, 16)
  const type = typeOfMode(mode)
  const info: FsInfo = { type, version: match[3] as FsVersion }
  if (type === 'file') info.size = Number(match[2])
  const special = type === 'other' ? specialOfMode(mode) : undefined
  if (special !== undefined) info.special = special
  return info
}

/**
 * What an `other` entry is, from the file-type bits `stat %f` prints (the same bits the local
 * provider reads). The scripts follow links (`stat -L`), so a symlink's own mode is printed only for
 * a link to nothing, with the `DANGLING` status.
 */
function specialOfMode(mode: number): FsSpecialKind | undefined {
  switch (mode & 0o170000) {
    case 0o120000: return 'broken-symlink'
    case 0o010000: return 'fifo'
    case 0o140000: return 'socket'
    case 0o020000:
    case 0o060000: return 'device'
    default: return undefined
  }
}

function typeOfMode(mode: number): FsEntryType {
  const format = mode & 0o170000
  if (format === 0o100000) return 'file'
  if (format === 0o040000) return 'directory'
  return 'other'
}

/** The info of a dangling link from the stat line `DANGLING` printed, or undefined when it printed none (the link went away). */
export function danglingInfo(output: string, path: string): FsInfo | undefined {
  const line = output.trim()
  return line === '' ? undefined : parseStatLine(line, path)
}

/** What `READ` printed: the stat line before and after the bytes, and the bytes themselves. */
export interface ReadSnapshot {
  info: FsInfo
  bytes: Uint8Array
  /** False when the file changed while it was being read: the bytes may belong to no version. */
  consistent: boolean
}

export function parseRead(output: string, path: string): ReadSnapshot {
  const [before = '', base64 = '', after = ''] = output.split('\n')
  const info = parseStatLine(before, path)
  const bytes = Buffer.from(base64, 'base64')
  const end = parseStatLine(after, path)
  return { info, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), consistent: end.version === info.version }
}

/** Where a lexical path led when a script looked: its key, and the realpath of its directory. */
export interface Identity {
  key: string
  parent: string
}

/** The identity records a script printed first, and the output that follows them. */
export function parseIdentity(output: string, path: string): { identity: Identity; rest: string } {
  const first = output.indexOf('\0')
  const second = first < 0 ? -1 : output.indexOf('\0', first + 1)
  const key = output.slice(0, first)
  const parent = output.slice(first + 1, second)
  if (second < 0 || !key.startsWith('/') || !parent.startsWith('/')) {
    throw fsError('FS_IO_ERROR', { path, reason: `got unexpected realpath output: ${JSON.stringify(output.slice(0, 200))}` })
  }
  return { identity: { key, parent }, rest: output.slice(second + 1) }
}

export interface ListedEntry {
  name: string
  info: FsInfo
  /** The realpath of a symlink entry (its identity); absent for everything else. */
  real?: string
}

/** Reads `LIST`'s NUL-separated records back into entries, sorted by name. */
export function parseList(output: string, path: string): { entries: ListedEntry[]; total: number | undefined } {
  const records = output.split('\0')
  const entries = new Map<string, ListedEntry>()
  const links = new Map<string, string>()
  let total: number | undefined
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!
    if (record.startsWith('N') && /^N\d+$/.test(record)) {
      total = Number(record.slice(1))
    } else if (record.startsWith('E')) {
      // `E<mode> <size> <version> ./<name>`: the name is everything after the third space.
      const fields = /^E(\S+ \S+ \S+) \.\/([\s\S]+)$/.exec(record)
      if (!fields) throw unexpectedListing(path)
      entries.set(fields[2]!, { name: fields[2]!, info: parseStatLine(fields[1]!, path) })
    } else if (record.startsWith('L')) {
      links.set(record.slice(1), records[++i] ?? '')
    } else if (record !== '') {
      throw unexpectedListing(path)
    }
  }
  for (const [name, real] of links) {
    const entry = entries.get(name)
    if (entry && real.startsWith('/')) entry.real = real
  }
  return { entries: [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), total }
}

function unexpectedListing(path: string) {
  return fsError('FS_IO_ERROR', { path, reason: 'got unexpected listing output' })
}
