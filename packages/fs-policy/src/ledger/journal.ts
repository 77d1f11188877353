import { createHash } from 'node:crypto'

/** One journal record: an observation (`o`) or a retried call's outcome (`r`) of an owner, and when it expires. */
export interface JournalRecord {
  t: 'o' | 'r'
  /** Owner key. */
  w: string
  /** Target key (`o`) or call id (`r`). */
  k: string
  v: unknown
  /** Expiry, ms since the epoch. */
  x: number
}

/**
 * A line is `<checksum> <json>\n`, the checksum the first 16 hex digits of the JSON's SHA-256.
 * A torn write leaves a line without its newline or with a checksum that does not match, and no
 * prefix of a line is itself a valid line, so replay can tell a torn tail from a record.
 */
export function encodeRecord(record: JournalRecord): string {
  const json = JSON.stringify(record)
  return `${checksum(json)} ${json}\n`
}

function checksum(json: string): string {
  return createHash('sha256').update(json, 'utf8').digest('hex').slice(0, 16)
}

/**
 * The records of a journal, in order, up to the first line that is torn or corrupt, and the byte
 * length of that valid prefix. Everything after the first bad line is dropped: a crash can only
 * lose the last entries, and replay never makes up one.
 */
export function decodeJournal(bytes: Buffer): { records: JournalRecord[]; validLength: number } {
  const records: JournalRecord[] = []
  let start = 0
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start)
    if (end === -1) break
    const record = decodeLine(bytes.toString('utf8', start, end))
    if (record === undefined) break
    records.push(record)
    start = end + 1
  }
  return { records, validLength: start }
}

function decodeLine(line: string): JournalRecord | undefined {
  const space = line.indexOf(' ')
  if (space !== 16) return undefined
  const json = line.slice(17)
  if (checksum(json) !== line.slice(0, 16)) return undefined
  try {
    const record = JSON.parse(json) as Partial<JournalRecord>
    const wellFormed = (record.t === 'o' || record.t === 'r') && typeof record.w === 'string' && typeof record.k === 'string'
      && typeof record.x === 'number' && record.v !== undefined
    return wellFormed ? record as JournalRecord : undefined
  } catch {
    return undefined
  }
}
