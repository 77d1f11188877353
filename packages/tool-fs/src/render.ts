import type { FsError, FsErrorCode } from '@deepseek-ai/dsh-fs'
import { errorResult, type ToolResult } from '@deepseek-ai/dsh-tools'
import type { LineChanges } from './changes'
import { linePrefix, type ReadWindow, type WindowLine } from './window'

/*
 * Every sentence the model reads from read, write and edit is built here, from the data the tools
 * returned. Providers' messages describe what happened; the remedy (what to do next) is added here.
 */

export type FsToolName = 'read' | 'write' | 'edit'

export interface ReadData {
  path: string
  offset: number
  window: ReadWindow
  maxLineLength: number
  maxBytes: number
}

export interface WriteData {
  path: string
  operation: 'create' | 'update'
  lines: number
  /** Missing when the provider did not return the previous text (above its diff bound). */
  changes?: LineChanges
  /** Numbered lines of the new text around the change. */
  snippet: WindowLine[]
  maxLineLength: number
}

export interface EditData {
  path: string
  replacements: number
  changes?: LineChanges
  /** Numbered lines of the new text around the first change. */
  snippet: WindowLine[]
  maxLineLength: number
}

export function renderRead(data: ReadData): string {
  const { path, offset, window } = data
  if (window.lines.length === 0) {
    const total = window.totalLines ?? 0
    if (total === 0) return `${path} is empty (0 lines).`
    return `${path} has ${plural(total, 'line')}; offset=${offset} is past the end of the file. `
      + `Call read with an offset from 1 to ${total}.`
  }
  const body = numbered(window.lines)
  const notes: string[] = []
  const cut = cutNote(window.lines, data.maxLineLength)
  if (cut !== undefined) notes.push(cut)
  const first = window.lines[0]!.number
  const last = window.lines.at(-1)!.number
  if (window.end === 'limit') {
    notes.push(`[Showing lines ${first}-${last}; the file continues. To read more, call read with offset=${window.nextOffset}.]`)
  } else if (window.end === 'bytes') {
    notes.push(`[Showing lines ${first}-${last}: the output reached the ${formatBytes(data.maxBytes)} limit. `
      + `To read more, call read with offset=${window.nextOffset}.]`)
  }
  return notes.length === 0 ? body : `${body}\n\n${notes.join('\n')}`
}

/**
 * An overwrite is described by the one region between the lines it kept at both ends (see
 * `lineChanges`): which old lines it replaced and with how many, then the lines around it.
 */
export function renderWrite(data: WriteData): string {
  const { path, lines, changes } = data
  if (data.operation === 'create') return `Created ${path} (${plural(lines, 'line')}).`
  if (changes?.first === undefined) {
    if (changes === undefined) return `Updated ${path} (${plural(lines, 'line')} now).`
    return `Updated ${path}: the content is unchanged (${plural(lines, 'line')}).`
  }
  const { start } = changes.first
  let what: string
  if (changes.removed === 0) what = `added ${span(start, changes.added)}`
  else if (changes.added === 0) what = `removed ${span(start, changes.removed)}`
  else if (changes.added === changes.removed) what = `changed ${span(start, changes.added)}`
  else what = `replaced ${span(start, changes.removed)} with ${plural(changes.added, 'line')}`
  return `Updated ${path}: ${what} (${plural(lines, 'line')} now).${aroundChange('the change', data.snippet, data.maxLineLength)}`
}

export function renderEdit(data: EditData): string {
  const { path, changes, snippet } = data
  let text = `Edited ${path}: ${plural(data.replacements, 'replacement')}`
  text += changes === undefined ? '.' : `, ${plural(changes.added, 'line')} added, ${changes.removed} removed.`
  return text + aroundChange(data.replacements > 1 ? 'the first replacement' : 'the change', snippet, data.maxLineLength)
}

function aroundChange(where: string, snippet: WindowLine[], maxLineLength: number): string {
  if (snippet.length === 0) return ''
  const cut = cutNote(snippet, maxLineLength)
  return `\nThe file around ${where} now reads:\n${numbered(snippet)}${cut === undefined ? '' : `\n\n${cut}`}`
}

/** `line 4` or `lines 4-9`: `count` lines from `start`. */
function span(start: number, count: number): string {
  return count === 1 ? `line ${start}` : `lines ${start}-${start + count - 1}`
}

/** The error result of a tool: the provider's account of what failed, then the one step that works. */
export function renderFailure(tool: FsToolName, error: FsError): ToolResult {
  const message = error.message.replace(/[.\s]+$/, '')
  const remedy = remedyFor(tool, error.code)
  // The remedy ends the text, verbatim: hosts and tests recognise it by its last words.
  return errorResult(remedy === undefined ? `${message}.` : `${message}; ${remedy}`, error.code)
}

function remedyFor(tool: FsToolName, code: FsErrorCode): string | undefined {
  switch (code) {
    case 'FS_STALE_VERSION': return 're-read the file, then retry'
    case 'FS_NOT_OBSERVED': return 'read the file, then retry'
    case 'FS_NOT_FOUND':
      if (tool === 'edit') return 'create it with write'
      if (tool === 'read') return 'check the path, or create the file with write'
      return undefined
    case 'FS_EDIT_NOT_FOUND': return 're-read the file and copy old_string exactly from it, including whitespace'
    case 'FS_AMBIGUOUS_EDIT': return 'include more surrounding lines in old_string so it matches once, or set replace_all to true'
    case 'FS_NOT_REGULAR_FILE': return 'pass the path of a regular file'
    case 'FS_NOT_DIRECTORY': return 'a parent of this path is a file; choose another path'
    case 'FS_OUTSIDE_ROOT': return 'use a path inside the workspace'
    case 'FS_INVALID_PATH': return 'pass a valid file path'
    default: return undefined
  }
}

function cutNote(lines: WindowLine[], maxLineLength: number): string | undefined {
  const cut = lines.filter((line) => line.cut).map((line) => line.number)
  if (cut.length === 0) return undefined
  return `[${cut.length === 1 ? `Line ${cut[0]} is` : `Lines ${list(cut)} are`} cut: a line is shown up to ${maxLineLength} characters.]`
}

function numbered(lines: WindowLine[]): string {
  return lines.map((line) => `${linePrefix(line.number)}${line.text}`).join('\n')
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

function list(numbers: number[]): string {
  return numbers.length <= 10 ? numbers.join(', ') : `${numbers.slice(0, 10).join(', ')} and ${numbers.length - 10} more`
}

function formatBytes(bytes: number): string {
  if (bytes % 1024 === 0 && bytes >= 1024) return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`
  return `${bytes} bytes`
}
