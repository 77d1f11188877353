import { dominantLineEnding, normalizeLineEndings } from '@deepseek-ai/dsh-fs/kit'

/** The 1-based line on which `offset` falls. */
export function lineAt(text: string, offset: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

/**
 * The lines on which `oldString` starts, matched the way the provider's literal edit matches
 * (line endings normalised to LF, non-overlapping). Only used to explain an ambiguous edit.
 */
export function occurrenceLines(text: string, oldString: string): number[] {
  const haystack = normalizeLineEndings(text)
  const needle = normalizeLineEndings(oldString)
  const lines: number[] = []
  if (needle.length === 0) return lines
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
    lines.push(lineAt(haystack, at))
  }
  return lines
}

export interface Insertion {
  text: string
  /** The first inserted line, 1-based, in the new text. */
  firstLine: number
  lineCount: number
}

/**
 * Inserts `block` as whole lines after line `after` (0 = at the top) of `text`, which must be in
 * `[0, countLines(text)]`. Only bytes are added: every existing byte, CRLF or LF, stays as it was.
 * The inserted lines take the file's dominant line ending. One trailing line break of `block` is
 * dropped, since the block becomes whole lines anyway; a file whose last line has no terminator
 * keeps having none.
 */
export function insertLines(text: string, after: number, block: string): Insertion {
  const eol = dominantLineEnding(text)
  let body = normalizeLineEndings(block)
  if (body.endsWith('\n')) body = body.slice(0, -1)
  const lineCount = body.split('\n').length
  if (eol === '\r\n') body = body.replaceAll('\n', '\r\n')
  let offset = 0
  for (let line = 0; line < after; line++) {
    const next = text.indexOf('\n', offset)
    offset = next < 0 ? text.length : next + 1
  }
  // After an unterminated last line: start a new line, and leave the file unterminated as it was.
  const unterminatedEnd = offset === text.length && text.length > 0 && !text.endsWith('\n')
  const inserted = unterminatedEnd ? eol + body : body + eol
  return { text: text.slice(0, offset) + inserted + text.slice(offset), firstLine: after + 1, lineCount }
}
