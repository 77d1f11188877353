import type { FsDirEntry, FsError, FsErrorCode, FsSeenLines } from '@deepseek-ai/dsh-fs'
import { escapeName } from '@deepseek-ai/dsh-fs/kit'
import { errorResult, type ToolResult } from '@deepseek-ai/dsh-tools'
import {
  type Attempt, cutNote, tooLargeText, FS_TOOL_WORDS, type MatchFailure, type NotAFile, notAFileText, numbered, plural,
  type ReadWindow, readNotes, readOnlyText, renderMatchFailure, renderNotSeen, renderStale, type WindowLine,
} from '@deepseek-ai/dsh-tool-text'
import { encodingRemedy } from '@deepseek-ai/dsh-tool-text'

/*
 * Every sentence the model reads from read and write, and the refusals of read, write, edit and
 * multi_edit, built from the data the tools returned; what an edit did and why a match failed are
 * rendered by dsh-tool-text, for both families. Providers' messages describe what happened; the
 * remedy (what to do next) is added here.
 */

export type FsToolName = 'read' | 'write' | 'edit'

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

/** What a tool learned on a failure path, beyond the provider's error. */
export type FailureDetail =
  /** The target is a directory, special file, binary or non-UTF-8 file: named before any read-first remedy. */
  | { kind: 'not-a-file'; nature: NotAFile }
  /** An edit of a path the session never saw, and nothing is there: creating it works at once. */
  | { kind: 'missing' }
  /** The path is a symbolic link to a text file the session has not read (say, a file swapped for a link since the read). */
  | { kind: 'linked' }
  /** A text file larger than the provider changes: refused by its size, before any read-first rule. */
  | { kind: 'too-large'; size: number; limit: number }
  /** Stale, and the file is gone now; recorded as absent (`staleRefusalObserves`). */
  | { kind: 'stale-absent'; maxLineLength: number }
  /** Stale; the current version's text, recorded as read (`staleRefusalObserves`). */
  | { kind: 'stale-shown'; lines: WindowLine[]; totalLines: number; where: 'match' | 'nearest' | 'start'; maxLineLength: number }
  /** old_string matched nothing (the closest region, if any resembles it) or more than once (each line it is on). */
  | { kind: 'match'; failure: MatchFailure; maxLineLength: number }
  /** A whole-file replacement refused by the policy's seen rule: what the session was shown of the version. */
  | { kind: 'not-seen'; seen: FsSeenLines | undefined }

/** The error result of a tool: the provider's account of what failed, then the one step that works. */
export function renderFailure(tool: FsToolName, error: FsError, detail?: FailureDetail, path = error.path ?? 'the file'): ToolResult {
  switch (detail?.kind) {
    case 'not-a-file':
      return errorResult(`${notAFileText(path, detail.nature, ATTEMPTS[tool], FS_TOOL_WORDS)}.`,
        detail.nature.kind === 'binary' || detail.nature.kind === 'not-utf8' ? 'FS_NOT_TEXT' : 'FS_NOT_REGULAR_FILE')
    case 'missing':
      return errorResult(`${path} does not exist; create it with the dsh \`write\` tool.`, error.code)
    case 'too-large':
      return errorResult(`${tooLargeText(path, detail.size, detail.limit)}.`, 'FS_TOO_LARGE')
    case 'linked':
      return errorResult(`${path} is a symbolic link now, so the change would land in the file it points to, which has not been read in this session `
        + '(the dsh `read` tool shows it through the link); read the file, then retry', error.code)
    case 'stale-absent':
      return errorResult(renderStale({ kind: 'stale-absent', path, call: staleCall(tool) }, detail), error.code)
    case 'stale-shown':
      return errorResult(renderStale({ ...detail, path, call: staleCall(tool), reason: error.message }, detail), error.code)
    case 'match':
      return errorResult(renderMatchFailure(detail.failure, 'fs', detail), error.code)
    case 'not-seen':
      return errorResult(renderNotSeen(path, detail.seen), error.code)
    default: {
      if (error.fact === 'read-only') return errorResult(`${readOnlyText(path)}.`, error.code)
      const message = error.message.replace(/[.\s]+$/, '')
      const remedy = encodingRemedy(error, tool) ?? remedyFor(tool, error.code)
      // The remedy ends the text, verbatim: hosts and tests recognise it by its last words.
      return errorResult(remedy === undefined ? `${message}.` : `${message}${remedy.startsWith(' (') ? '' : '; '}${remedy}`, error.code)
    }
  }
}

const staleCall = (tool: FsToolName) => tool === 'write' ? 'write' : 'edit'

const ATTEMPTS: Record<FsToolName, Attempt> = { read: 'show', edit: 'change', write: 'create' }

function remedyFor(tool: FsToolName, code: FsErrorCode): string | undefined {
  switch (code) {
    // The seed notes' remedies, kept word for word after the semicolon; the tool is named before it.
    case 'FS_STALE_VERSION': return ' (the dsh `read` tool shows the file); re-read the file, then retry'
    case 'FS_NOT_OBSERVED': return ' (the dsh `read` tool shows the file); read the file, then retry'
    case 'FS_NOT_FOUND':
      if (tool === 'edit') return 'create it with the dsh `write` tool'
      if (tool === 'read') return 'check the path, or create the file with the dsh `write` tool'
      return undefined
    case 'FS_EDIT_NOT_FOUND': return 'quote text that exists in the file'
    case 'FS_AMBIGUOUS_EDIT': return 'include more surrounding lines in old_string so it matches once, or set replace_all to true'
    case 'FS_NOT_REGULAR_FILE': return 'pass the path of a regular file'
    case 'FS_NOT_TEXT': return 'these tools show and change UTF-8 text only: pass the path of a text file'
    case 'FS_NOT_DIRECTORY': return 'a parent of this path is a file; choose another path'
    case 'FS_OUTSIDE_ROOT': return 'use a path inside the workspace'
    case 'FS_INVALID_PATH': return 'pass a valid file path'
    default: return undefined
  }
}

function formatBytes(bytes: number): string {
  if (bytes % 1024 === 0 && bytes >= 1024) return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`
  return `${bytes} bytes`
}
