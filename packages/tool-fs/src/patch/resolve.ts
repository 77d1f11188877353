import type { FsLineChange } from '@deepseek-ai/dsh-fs'
import { dominantLineEnding } from '@deepseek-ai/dsh-fs/kit'
import type { PatchHunk } from './parse'

/*
 * Where the hunks of an Update land in a file's text, and the text they make: pure, no I/O.
 * Matching is exact, line by line (a CRLF and an LF end a line alike; nothing else is forgiven), so
 * a hunk is applied where its lines are, or nowhere. Lines outside the hunks keep their bytes and
 * their own line endings; lines a hunk adds take the file's line ending.
 */

/** Why a hunk found no place. `hunk` is its 0-based index in the section. */
export type HunkFailure =
  /** Its context and removed lines occur nowhere at or after where the previous hunk ended. */
  | { kind: 'not-found'; hunk: number; needle: string; earlierLine?: number }
  /** They occur more than once there, and no anchor picks one: the 1-based lines where each occurrence starts. */
  | { kind: 'ambiguous'; hunk: number; needle: string; lines: number[]; truncated: boolean }
  /** An `@@ <anchor>` line occurs in no line at or after where the previous hunk ended. */
  | { kind: 'anchor-not-found'; hunk: number; anchor: string }
  /** `*** End of File`: its lines are in the file, but not at its end. */
  | { kind: 'not-at-end'; hunk: number; needle: string; lines: number[] }

export interface ResolvedUpdate {
  text: string
  /** The changed regions in lines of the new text, in order (as `FsEditOutcome.changes`). */
  changes: FsLineChange[]
  added: number
  removed: number
}

/** How many occurrence lines an ambiguity names. */
const MAX_NAMED = 10

/** One line of the text: its content and the line break that ends it (`''` for the last). */
interface Segment {
  content: string
  eol: string
}

interface Replacement {
  /** Index of the first segment replaced. */
  start: number
  count: number
  lines: string[]
  hunk: number
}

/**
 * Applies `hunks` in order to `text`: each is sought from where the previous one ended (so hunks
 * follow the file's order), after its anchors when it has some. Returns the new text and where it
 * changed, or the first hunk that found no place.
 */
export function resolveHunks(text: string, hunks: readonly PatchHunk[]): ResolvedUpdate | HunkFailure {
  const segments = segmentsOf(text)
  const contents = segments.map((segment) => segment.content)
  const ids = new LineIds()
  const file: Indexed = { segments, contents, ids, fileIds: ids.of(contents) }
  const replacements: Replacement[] = []
  let cursor = 0
  for (const [index, hunk] of hunks.entries()) {
    let from = cursor
    for (const anchor of hunk.anchors) {
      const line = findAnchor(contents, anchor, from)
      if (line === undefined) return { kind: 'anchor-not-found', hunk: index, anchor }
      // The anchor line may itself be the hunk's first context line.
      from = line
    }
    if (hunk.oldLines.length === 0) {
      // Only added lines: after the anchor when there is one, else at the end of the file.
      const at = hunk.anchors.length > 0 ? from + 1 : endInsertion(segments)
      replacements.push({ start: at, count: 0, lines: hunk.newLines, hunk: index })
      if (hunk.anchors.length > 0) cursor = at
      continue
    }
    const start = matchStart(file, hunk, index, from)
    if (typeof start !== 'number') return start
    replacements.push(...blocksOf(hunk, start, index))
    cursor = start + hunk.oldLines.length
  }
  return splice(segments, replacements, dominantLineEnding(text))
}

/** The file's lines, as segments, texts and ids for matching. */
interface Indexed {
  segments: ReturnType<typeof segmentsOf>
  contents: string[]
  ids: LineIds
  fileIds: ReturnType<LineIds['of']>
}

/** Where a hunk's old lines stand from `from`: one place (the last at the end for `*** End of File`), or why none. */
function matchStart(file: Indexed, hunk: PatchHunk, index: number, from: number): number | HunkFailure {
  const { segments, fileIds } = file
  const needle = hunk.oldLines.join('\n')
  const pattern = file.ids.of(hunk.oldLines)
  const found = occurrences(fileIds, pattern, from, hunk.endOfFile ? Infinity : hunk.anchors.length > 0 ? 1 : MAX_NAMED + 1)
  if (hunk.endOfFile) {
    const last = lastLineIndex(segments)
    // The pattern may or may not include the empty segment after a final line break.
    const atEnd = found.filter((at) => at + pattern.length - 1 === last || at + pattern.length === segments.length)
    if (atEnd.length > 0) return atEnd.at(-1)!
    if (found.length > 0) return { kind: 'not-at-end', hunk: index, needle, lines: found.slice(0, MAX_NAMED).map((at) => at + 1) }
    return notFound(index, needle, fileIds, pattern, from)
  }
  if (found.length === 0) return notFound(index, needle, fileIds, pattern, from)
  if (found.length > 1 && hunk.anchors.length === 0) {
    return { kind: 'ambiguous', hunk: index, needle, lines: found.slice(0, MAX_NAMED).map((at) => at + 1), truncated: found.length > MAX_NAMED }
  }
  return found[0]!
}

/**
 * The runs of removed and added lines of a hunk matched at `start`, each a replacement of its own:
 * the kept lines between them are never rewritten, so they keep their bytes and line endings.
 */
function blocksOf(hunk: PatchHunk, start: number, index: number): Replacement[] {
  const blocks: Replacement[] = []
  let line = start
  let open: Replacement | undefined
  for (const { sign, text } of hunk.body) {
    if (sign === ' ') {
      open = undefined
      line++
      continue
    }
    if (open === undefined) blocks.push(open = { start: line, count: 0, lines: [], hunk: index })
    if (sign === '-') {
      open.count++
      line++
    } else {
      open.lines.push(text)
    }
  }
  return blocks
}

function notFound(hunk: number, needle: string, fileIds: Int32Array, pattern: Int32Array, from: number): HunkFailure {
  // Present above the previous hunk only: the hunks are out of the file's order.
  const earlier = from > 0 ? occurrences(fileIds, pattern, 0, 1)[0] : undefined
  return earlier === undefined || earlier >= from ? { kind: 'not-found', hunk, needle } : { kind: 'not-found', hunk, needle, earlierLine: earlier + 1 }
}

/** The text as lines with their own breaks; a text ending in a break has an empty last segment. */
function segmentsOf(text: string): Segment[] {
  const segments: Segment[] = []
  let at = 0
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
    const crlf = nl > at && text.charCodeAt(nl - 1) === 13
    segments.push({ content: text.slice(at, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n' })
    at = nl + 1
  }
  segments.push({ content: text.slice(at), eol: '' })
  return segments
}

/** The index of the file's last line: the empty segment after a final line break is not a line. */
function lastLineIndex(segments: Segment[]): number {
  return segments.length > 1 && segments.at(-1)!.content === '' ? segments.length - 2 : segments.length - 1
}

/** Where lines added at the end of the file go: before the empty segment after a final break, else after the last line. */
function endInsertion(segments: Segment[]): number {
  return segments.at(-1)!.content === '' ? segments.length - 1 : segments.length
}

/** The first line at or after `from` that is the anchor, exactly, or else equal to it once both are trimmed (an anchor only points). */
function findAnchor(contents: string[], anchor: string, from: number): number | undefined {
  for (let line = from; line < contents.length; line++) if (contents[line] === anchor) return line
  const trimmed = anchor.trim()
  for (let line = from; line < contents.length; line++) if (contents[line]!.trim() === trimmed) return line
  return undefined
}

/** Lines as small integers, equal exactly when the lines are: the search compares numbers. */
class LineIds {
  #ids = new Map<string, number>()

  of(lines: readonly string[]): Int32Array {
    const out = new Int32Array(lines.length)
    for (const [index, line] of lines.entries()) {
      let id = this.#ids.get(line)
      if (id === undefined) this.#ids.set(line, (id = this.#ids.size))
      out[index] = id
    }
    return out
  }
}

/**
 * The starts (0-based, ascending, overlapping ones included) of `pattern` in `text` at or after
 * `from`, at most `limit` of them: Knuth–Morris–Pratt, so the cost is the lengths' sum whatever the
 * lines repeat.
 */
function occurrences(text: Int32Array, pattern: Int32Array, from: number, limit: number): number[] {
  const m = pattern.length
  const failure = new Int32Array(m)
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1]!
    if (pattern[i] === pattern[k]) k++
    failure[i] = k
  }
  const found: number[] = []
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== pattern[k]) k = failure[k - 1]!
    if (text[i] === pattern[k]) k++
    if (k === m) {
      found.push(i - m + 1)
      if (found.length >= limit) break
      k = failure[k - 1]!
    }
  }
  return found
}

/** The new text: replacements applied from the last to the first, and where each landed in the new text. */
function splice(segments: Segment[], replacements: Replacement[], eol: string): ResolvedUpdate {
  // In file order; an insertion before a replacement at the same line goes first.
  const ordered = [...replacements].sort((a, b) => a.start - b.start || a.count - b.count || a.hunk - b.hunk)
  const out: string[] = []
  const changes: FsLineChange[] = []
  let added = 0
  let removed = 0
  let next = 0
  let line = 1
  const emit = (content: string, end: string) => {
    out.push(content, end)
    if (end !== '') line++
  }
  for (const replacement of ordered) {
    const { count, lines } = replacement
    // Lines added at the end land after a later hunk that took in the file's last segment.
    const start = Math.max(replacement.start, next)
    for (; next < start; next++) {
      const segment = segments[next]!
      // A last line without a break gets one when lines are added after it.
      emit(segment.content, segment.eol === '' ? eol : segment.eol)
    }
    const replacedEnd = start + count
    // The replaced lines included the last segment: the new last line ends as it did (no break, or the empty segment stays).
    // Or the lines go after a last line that had no break: they end the file the same way.
    const takesLast = replacedEnd >= segments.length
    const firstLine = line
    for (const [index, content] of lines.entries()) {
      const lastOfAll = takesLast && index === lines.length - 1
      emit(content, lastOfAll ? (count > 0 ? segments.at(-1)!.eol : '') : eol)
    }
    // The lines of the new text this replacement stands on, for `changes`.
    if (lines.length > 0 || count > 0) changes.push({ line: firstLine, removedLines: count, addedLines: lines.length })
    added += lines.length
    removed += count
    next = replacedEnd
  }
  for (; next < segments.length; next++) emit(segments[next]!.content, segments[next]!.eol)
  return { text: out.join(''), changes: changes.filter((change) => change.removedLines > 0 || change.addedLines > 0), added, removed }
}
