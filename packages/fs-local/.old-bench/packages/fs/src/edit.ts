import { Buffer } from 'node:buffer'
import { fsError } from './errors'
import { occurrencesAt, type SpliceLines, spliceLines } from './lines'
import { dominantLineEnding, normalizeLineEndings } from './line-endings'
import type { FsEditRequest } from './types'

export interface SpliceResult {
  text: string
  replacements: number
  /** Where the replacements landed, by line of the new text. */
  lines: SpliceLines
}

export interface SpliceLimits {
  /** Largest result, in UTF-8 bytes: a bigger one fails `FS_TOO_LARGE` before it is built. */
  maxBytes?: number
  /** The UTF-8 size of `text`, when the caller knows it (else it is measured). */
  textBytes?: number
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

/**
 * Replaces `oldString` with `newString` literally (no `$` patterns, no fuzzy matching).
 *
 * Matching happens in LF-normalised space, but only the changed part of each match is rewritten:
 * bytes outside it stay identical, mixed line endings stay mixed, and line breaks in the inserted
 * text take the file's dominant line ending. An edit that changes nothing leaves the text identical.
 */
export function spliceLiteral(text: string, edit: FsEditRequest, path?: string, limits: SpliceLimits = {}): SpliceResult {
  const oldString = normalizeLineEndings(edit.oldString)
  const newString = normalizeLineEndings(edit.newString)
  if (oldString.length === 0) {
    throw fsError('FS_EDIT_NOT_FOUND', { path, reason: 'is empty; it must quote text that exists' })
  }
  const normalized = normalizeLineEndings(text)
  const matches: number[] = []
  for (let at = normalized.indexOf(oldString); at >= 0; at = normalized.indexOf(oldString, at + oldString.length)) {
    matches.push(at)
  }
  if (matches.length === 0) {
    throw fsError('FS_EDIT_NOT_FOUND', { path })
  }
  if (matches.length > 1 && !edit.replaceAll) {
    throw fsError('FS_AMBIGUOUS_EDIT', { path, occurrences: occurrencesAt(normalized, matches) })
  }

  // Trim what old and new share at both ends, so the rewritten span is only what really changes.
  let prefix = 0
  const shortest = Math.min(oldString.length, newString.length)
  while (prefix < shortest && oldString[prefix] === newString[prefix]) prefix++
  let suffix = 0
  while (suffix < shortest - prefix && oldString[oldString.length - 1 - suffix] === newString[newString.length - 1 - suffix]) suffix++
  if (prefix === oldString.length && prefix === newString.length) {
    return { text, replacements: matches.length, lines: { changes: [], added: 0, removed: 0 } }
  }

  const eol = dominantLineEnding(text)
  let inserted = newString.slice(prefix, newString.length - suffix)
  if (eol === '\r\n') inserted = inserted.replaceAll('\n', '\r\n')
  const toRaw = rawOffsetMapper(text)
  const starts: number[] = []
  const ends: number[] = []
  for (const at of matches) {
    starts.push(toRaw(at + prefix))
    ends.push(toRaw(at + oldString.length - suffix))
  }
  if (limits.maxBytes !== undefined) {
    checkResultSize(text, starts, ends, inserted, oldString.slice(prefix, oldString.length - suffix), limits.maxBytes, limits.textBytes, path)
  }
  const parts: string[] = []
  let cursor = 0
  for (let i = 0; i < starts.length; i++) {
    parts.push(text.slice(cursor, starts[i]), inserted)
    cursor = ends[i]!
  }
  parts.push(text.slice(cursor))
  const result = parts.join('')
  return { text: result, replacements: matches.length, lines: spliceLines(text, result, starts, ends, inserted) }
}

/**
 * Refuses a splice whose result would be larger than `maxBytes`, before a byte of it is built: a
 * short `replace_all` over many matches can multiply a file. A replaced span differs from the
 * normalised `removed` only by the carriage returns of its CRLFs, one byte each.
 */
function checkResultSize(
  text: string, starts: number[], ends: number[], inserted: string, removed: string,
  maxBytes: number, textBytes: number | undefined, path: string | undefined,
): void {
  const insertedBytes = Buffer.byteLength(inserted)
  const removedBytes = Buffer.byteLength(removed)
  let size = textBytes ?? Buffer.byteLength(text)
  for (let i = 0; i < starts.length; i++) size += insertedBytes - removedBytes - (ends[i]! - starts[i]! - removed.length)
  if (size <= maxBytes) return
  throw fsError('FS_TOO_LARGE', {
    path,
    reason: `would become ${formatSize(size)} with this edit (${starts.length} replacement${starts.length === 1 ? '' : 's'}), `
      + `above the ${formatSize(maxBytes)} limit for a text file; nothing was changed. Replace fewer occurrences or use a shorter new_string`,
  })
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
