import { FsError } from './errors'
import { dominantLineEnding, normalizeLineEndings } from './text'
import type { FsEditRequest } from './types'

export interface SpliceResult {
  text: string
  replacements: number
}

/**
 * Maps offsets in the LF-normalised text back to the original, where some line feeds are CRLF.
 * `crlfAt[k]` is the normalised offset of the k-th LF that was a CRLF.
 */
function rawOffsetMapper(text: string): (offset: number) => number {
  const crlfAt: number[] = []
  for (let i = text.indexOf('\r\n'); i >= 0; i = text.indexOf('\r\n', i + 2)) crlfAt.push(i - crlfAt.length)
  if (crlfAt.length === 0) return (offset) => offset
  return (offset) => {
    // Count the CRLFs that end strictly before `offset` (binary search).
    let lo = 0
    let hi = crlfAt.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (crlfAt[mid]! < offset) lo = mid + 1
      else hi = mid
    }
    return offset + lo
  }
}

function lineOf(text: string, offset: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

/**
 * Replaces `oldString` with `newString` literally (no `$` patterns, no fuzzy matching).
 *
 * Matching happens in LF-normalised space, but only the changed part of each match is rewritten:
 * bytes outside it stay identical, mixed line endings stay mixed, and line breaks in the inserted
 * text take the file's dominant line ending. An edit that changes nothing leaves the text identical.
 */
export function spliceLiteral(text: string, edit: FsEditRequest, path?: string): SpliceResult {
  const oldString = normalizeLineEndings(edit.oldString)
  const newString = normalizeLineEndings(edit.newString)
  const where = path ?? 'the file'
  if (oldString.length === 0) {
    throw new FsError('FS_EDIT_NOT_FOUND', `old_string is empty; it must quote text that exists in ${where}`, { path })
  }
  const normalized = normalizeLineEndings(text)
  const matches: number[] = []
  for (let at = normalized.indexOf(oldString); at >= 0; at = normalized.indexOf(oldString, at + oldString.length)) {
    matches.push(at)
  }
  if (matches.length === 0) {
    throw new FsError('FS_EDIT_NOT_FOUND', `old_string was not found in ${where}`, { path })
  }
  if (matches.length > 1 && !edit.replaceAll) {
    const lines = matches.slice(0, 10).map((at) => lineOf(normalized, at))
    throw new FsError(
      'FS_AMBIGUOUS_EDIT',
      `old_string occurs ${matches.length} times in ${where} (lines ${lines.join(', ')}${matches.length > 10 ? ', …' : ''})`,
      { path },
    )
  }

  // Trim what old and new share at both ends, so the rewritten span is only what really changes.
  let prefix = 0
  const shortest = Math.min(oldString.length, newString.length)
  while (prefix < shortest && oldString[prefix] === newString[prefix]) prefix++
  let suffix = 0
  while (suffix < shortest - prefix && oldString[oldString.length - 1 - suffix] === newString[newString.length - 1 - suffix]) suffix++
  if (prefix === oldString.length && prefix === newString.length) return { text, replacements: matches.length }

  const eol = dominantLineEnding(text)
  let inserted = newString.slice(prefix, newString.length - suffix)
  if (eol === '\r\n') inserted = inserted.replaceAll('\n', '\r\n')
  const toRaw = rawOffsetMapper(text)
  const parts: string[] = []
  let cursor = 0
  for (const at of matches) {
    const start = toRaw(at + prefix)
    const end = toRaw(at + oldString.length - suffix)
    parts.push(text.slice(cursor, start), inserted)
    cursor = end
  }
  parts.push(text.slice(cursor))
  return { text: parts.join(''), replacements: matches.length }
}
