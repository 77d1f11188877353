import type { FsDirEntry } from '@deepseek-ai/dsh-fs'
import { escapeName } from '@deepseek-ai/dsh-fs/kit'
import { cutNote, numbered, plural, type ReadWindow, readNotes } from '@deepseek-ai/dsh-tool-text'

/*
 * What `read` shows, built from the data the tool returned. Its refusals, like every refusal of
 * the family, are worded by dsh-tool-text (`renderFsRefusal`); what an edit did too (`renderReport`).
 */

export interface ReadData {
  path: string
  offset: number
  /** The column asked for, when not 1. */
  column?: number
  window: ReadWindow
  /** The file's line count when it is known without reading further (the whole text was read). */
  totalLines?: number
  /** The offset as asked, when it was below 1 and so counted from the end of the file. */
  fromEnd?: number
  maxLineLength: number
  maxBytes: number
}

export interface DirectoryData {
  path: string
  entries: Pick<FsDirEntry, 'name' | 'type'>[]
  limit: number
}

/** What `read` returns: a file's window, or a directory's entries. */
export type ReadReply = { kind: 'file'; data: ReadData } | { kind: 'directory'; data: DirectoryData }

export function renderReadReply(reply: ReadReply): string {
  return reply.kind === 'file' ? renderRead(reply.data) : renderDirectory(reply.data)
}

export function renderRead(data: ReadData): string {
  const { path, offset, window } = data
  if (window.lineLength !== undefined) {
    return `Line ${offset} of ${path} has ${plural(window.lineLength, 'character')}; column=${data.column ?? 1} is past its end. `
      + `To see the line from its start, call the dsh \`read\` tool with offset=${offset} and no column.`
  }
  const total = window.totalLines ?? data.totalLines
  if (window.lines.length === 0) {
    if (total === 0 || total === undefined) return `${path} is empty (0 lines).`
    return `${path} has ${plural(total, 'line')}; offset=${offset} is past the end of the file. `
      + `Call the dsh \`read\` tool with an offset from 1 to ${total}.`
  }
  const body = numbered(window.lines)
  const notes: string[] = []
  if (data.fromEnd !== undefined) {
    notes.push(`[offset=${data.fromEnd} counts from the end: the file has ${plural(total ?? 0, 'line')}, so this starts at line ${offset}.]`)
  }
  const from = window.lines[0]!.column
  if (from !== undefined) notes.push(readNotes.shownFrom(window.lines[0]!.number, from))
  const cut = cutNote(window.lines, data.maxLineLength, 'fs')
  if (cut !== undefined) notes.push(cut)
  const first = window.lines[0]!.number
  const last = window.lines.at(-1)!.number
  if (window.end === 'limit') {
    notes.push(readNotes.continues(first, last, total, window.nextOffset!))
  } else if (window.end === 'bytes') {
    notes.push(readNotes.budget(first, last, total, formatBytes(data.maxBytes), window.nextOffset!))
  } else {
    notes.push(readNotes.endOfFile(total ?? last))
  }
  return `${body}\n\n${notes.join('\n')}`
}

/** A directory given to `read`: its entries, one level, so the next call can name a file in it. */
export function renderDirectory(data: DirectoryData): string {
  const { path, entries, limit } = data
  if (entries.length === 0) return `${escapeName(path)} is an empty directory.`
  // Names escaped as in every listing: a line feed in one cannot forge another entry.
  const shown = entries.slice(0, limit).map((entry) => entry.type === 'directory' ? `${escapeName(entry.name)}/` : escapeName(entry.name))
  const more = entries.length > limit ? `\n[Showing ${limit} of ${entries.length} entries.]` : ''
  return `${escapeName(path)} is a directory, not a file. It holds ${plural(entries.length, 'entry', 'entries')}:\n${shown.join('\n')}${more}\n\n`
    + '[To see a file, call the dsh `read` tool with its path.]'
}

function formatBytes(bytes: number): string {
  if (bytes % 1024 === 0 && bytes >= 1024) return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`
  return `${bytes} bytes`
}
