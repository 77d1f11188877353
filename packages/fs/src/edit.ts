import { Buffer } from 'node:buffer'
import { type FsError, fsError } from './errors'
import { FS_MAX_REPLACEMENTS } from './limits'
import { MemoryShortfall, resultCost } from './reservation'
import { formatSize } from './sizes'
import { occurrencesAt, type SpliceLines, spliceLines } from './lines'
import { correspondingEndings, countLineEndings, normalizeLineEndings, withEndings } from './line-endings'
import type { LineEnding } from './line-endings'
import type { FsEditRequest } from './types'

export interface SpliceResult {
  text: string
  replacements: number
  /** Where the replacements landed, by line of the new text. */
  lines: SpliceLines
  /** The UTF-8 size of `text`, when `limits.maxBytes` was given (computed, not measured). */
  bytes?: number
}

export interface SpliceLimits {
  /** Largest result, in UTF-8 bytes: a bigger one fails `FS_TOO_LARGE` before it is built. */
  maxBytes?: number
  /** The UTF-8 size of `text`, when the caller knows it (else it is measured). */
  textBytes?: number
  /**
   * Memory the caller holds for this result (`Reservation`): a larger result's cost
   * (`resultCost`) throws `MemoryShortfall` before it is built. Checked only with `maxBytes`.
   */
  heldBytes?: number
  /** The most replacements this splice may make (default `FS_MAX_REPLACEMENTS`); more fail `FS_TOO_LARGE` while they are counted. */
  maxReplacements?: number
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
 * bytes outside it stay identical, mixed line endings stay mixed. A line break of the inserted text
 * keeps the ending of the line it corresponds to in the replaced text (`correspondingEndings`), and
 * a new one takes the file's dominant ending. An edit that changes nothing leaves the text identical.
 */
export function spliceLiteral(text: string, edit: FsEditRequest, path?: string, limits: SpliceLimits = {}): SpliceResult {
  const oldString = normalizeLineEndings(edit.oldString)
  const newString = normalizeLineEndings(edit.newString)
  if (oldString.length === 0) {
    throw fsError('FS_EDIT_NOT_FOUND', { path, reason: 'is empty; it must quote text that exists' })
  }
  const matches = findMatches(normalizeLineEndings(text), oldString, edit.replaceAll, path, limits.maxReplacements ?? FS_MAX_REPLACEMENTS)
  // Trim what old and new share at both ends, so the rewritten span is only what really changes.
  const prefix = commonPrefix(oldString, newString)
  const suffix = commonSuffix(oldString, newString, prefix)
  if (prefix === oldString.length && prefix === newString.length) return unchangedSplice(text, matches.length, limits)

  // One pass over the file's line endings: the dominant one, and whether it mixes both.
  const endings = countLineEndings(text)
  const eol: LineEnding = endings.crlf > endings.lf ? '\r\n' : '\n'
  const toRaw = rawOffsetMapper(text)
  const starts: number[] = []
  const ends: number[] = []
  for (const at of matches) {
    starts.push(toRaw(at + prefix))
    ends.push(toRaw(at + oldString.length - suffix))
  }
  const inserted = insertedTexts(text, starts, ends, newString.slice(prefix, newString.length - suffix), eol, endings.crlf > 0 && endings.lf > 0)
  const bytes = limits.maxBytes === undefined
    ? undefined
    : checkResultSize(text, starts, ends, inserted, oldString.slice(prefix, oldString.length - suffix), limits.maxBytes, limits.textBytes, path)
  if (bytes !== undefined && limits.heldBytes !== undefined && resultCost(bytes) > limits.heldBytes) throw new MemoryShortfall(resultCost(bytes))
  const result = joinSplice(text, starts, ends, inserted)
  const spliced: SpliceResult = { text: result, replacements: matches.length, lines: spliceLines(text, result, starts, ends, inserted) }
  if (bytes !== undefined) spliced.bytes = bytes
  return spliced
}

/**
 * The normalised offsets where `oldString` occurs, without overlaps. None fails `FS_EDIT_NOT_FOUND`,
 * several without `replaceAll` fail `FS_AMBIGUOUS_EDIT`, more than `maxReplacements` fail `FS_TOO_LARGE`.
 */
function findMatches(normalized: string, oldString: string, replaceAll: boolean, path: string | undefined, maxReplacements: number): number[] {
  const matches: number[] = []
  for (let at = normalized.indexOf(oldString); at >= 0; at = normalized.indexOf(oldString, at + oldString.length)) {
    // Each replacement costs time and memory of its own: past the bound, stop counting and refuse.
    if (matches.length === maxReplacements && replaceAll) throw tooManyReplacements(path, maxReplacements)
    matches.push(at)
  }
  if (matches.length === 0) {
    throw fsError('FS_EDIT_NOT_FOUND', { path })
  }
  if (matches.length > 1 && !replaceAll) {
    throw fsError('FS_AMBIGUOUS_EDIT', { path, occurrences: occurrencesAt(normalized, matches) })
  }
  return matches
}

/** How many leading characters `a` and `b` share. */
function commonPrefix(a: string, b: string): number {
  const shortest = Math.min(a.length, b.length)
  let prefix = 0
  while (prefix < shortest && a[prefix] === b[prefix]) prefix++
  return prefix
}

/** How many trailing characters `a` and `b` share, not reaching into their first `prefix` ones. */
function commonSuffix(a: string, b: string, prefix: number): number {
  const room = Math.min(a.length, b.length) - prefix
  let suffix = 0
  while (suffix < room && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++
  return suffix
}

/** The result of an edit whose new text equals its old one: the text, identical. */
function unchangedSplice(text: string, replacements: number, limits: SpliceLimits): SpliceResult {
  const unchanged: SpliceResult = { text, replacements, lines: { changes: [], added: 0, removed: 0 } }
  if (limits.maxBytes !== undefined) unchanged.bytes = limits.textBytes ?? Buffer.byteLength(text)
  return unchanged
}

/** `text` with each raw span `[starts[i], ends[i])` replaced by its inserted text. */
function joinSplice(text: string, starts: readonly number[], ends: readonly number[], inserted: string | readonly string[]): string {
  const parts: string[] = []
  let cursor = 0
  for (let i = 0; i < starts.length; i++) {
    parts.push(text.slice(cursor, starts[i]), typeof inserted === 'string' ? inserted : inserted[i]!)
    cursor = ends[i]!
  }
  parts.push(text.slice(cursor))
  return parts.join('')
}

function tooManyReplacements(path: string | undefined, max: number): FsError {
  return fsError('FS_TOO_LARGE', {
    path,
    reason: `has more than ${max.toLocaleString('en-US')} occurrences of old_string to replace, more than `
      + (max === FS_MAX_REPLACEMENTS ? 'one call may replace' : `are left of the ${FS_MAX_REPLACEMENTS.toLocaleString('en-US')} replacements one call may make`)
      + '; nothing was changed. Use a longer old_string that occurs fewer times, or send the edits in several calls',
  })
}

/**
 * The text each replacement writes: one for all of them, in the file's dominant ending, unless the
 * file mixes endings and the inserted text has line breaks; then, per replacement, each break keeps
 * the ending of the line it corresponds to in the span it replaces. Replacements whose spans have
 * the same endings share one string.
 */
function insertedTexts(
  text: string, starts: readonly number[], ends: readonly number[], insertedLf: string, eol: LineEnding, mixed: boolean,
): string | string[] {
  if (!insertedLf.includes('\n') || !mixed) return eol === '\r\n' ? insertedLf.replaceAll('\n', '\r\n') : insertedLf
  const shared = new Map<string, string>()
  const lines = insertedLf.split('\n')
  return starts.map((start, i) => {
    const endings = correspondingEndings(text.slice(start, ends[i]), lines, eol)
    const key = endings.map((ending) => ending.length).join('')
    let inserted = shared.get(key)
    if (inserted === undefined) shared.set(key, inserted = withEndings(insertedLf, endings))
    return inserted
  })
}

/**
 * Refuses a splice whose result would be larger than `maxBytes`, before a byte of it is built: a
 * short `replace_all` over many matches can multiply a file. A replaced span differs from the
 * normalised `removed` only by the carriage returns of its CRLFs, one byte each. Returns the size.
 */
function checkResultSize(
  text: string, starts: number[], ends: number[], inserted: string | readonly string[], removed: string,
  maxBytes: number, textBytes: number | undefined, path: string | undefined,
): number {
  // Per replacement, the inserted texts differ only in carriage returns, one byte each.
  const first = typeof inserted === 'string' ? inserted : inserted[0]!
  const firstBytes = Buffer.byteLength(first)
  const insertedBytes = (i: number) => typeof inserted === 'string' ? firstBytes : firstBytes + inserted[i]!.length - first.length
  const removedBytes = Buffer.byteLength(removed)
  let size = textBytes ?? Buffer.byteLength(text)
  for (let i = 0; i < starts.length; i++) size += insertedBytes(i) - removedBytes - (ends[i]! - starts[i]! - removed.length)
  if (size <= maxBytes) return size
  throw fsError('FS_TOO_LARGE', {
    path,
    reason: `would become ${formatSize(size)} with this edit (${starts.length} replacement${starts.length === 1 ? '' : 's'}), `
      + `above the ${formatSize(maxBytes)} limit for a text file; nothing was changed. Replace fewer occurrences or use a shorter new_string`,
  })
}
