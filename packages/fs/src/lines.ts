import type { FsOccurrences } from './errors'
import type { FsLineChange } from './types'

/** How many regions `FsEditOutcome.changes` lists; the totals count every region. */
export const FS_MAX_LINE_CHANGES = 100

/** How many distinct lines `FsOccurrences.lines` lists. */
export const FS_MAX_OCCURRENCE_LINES = 100

/**
 * Line numbers of increasing offsets into one text. All calls together scan the text once: the
 * next line feed is remembered, so many offsets on one long line cost that line once, not per offset.
 */
export class LineCursor {
  #offset = 0
  #line = 1
  #lastNewline = -1
  /** The first line feed at or after `#offset`: -1 for none, -2 not looked up yet. */
  #nextNewline = -2

  constructor(readonly text: string) {}

  /** The 1-based line on which `offset` falls; offsets must not decrease from one call to the next. */
  lineAt(offset: number): number {
    if (offset > this.#offset) {
      let at = this.nextNewline()
      while (at >= 0 && at < offset) {
        this.#line++
        this.#lastNewline = at
        at = this.text.indexOf('\n', at + 1)
      }
      this.#nextNewline = at
      this.#offset = offset
    }
    return this.#line
  }

  /** Where the line of the last `lineAt` offset starts. */
  lineStart(): number {
    return this.#lastNewline + 1
  }

  /** The first line feed at or after the last `lineAt` offset, or -1. */
  nextNewline(): number {
    if (this.#nextNewline === -2) this.#nextNewline = this.text.indexOf('\n', this.#offset)
    return this.#nextNewline
  }
}

/** Lines in `text[start, end)`, where `end` is a line end: a final line without a line feed counts. */
function linesIn(text: string, start: number, end: number): number {
  let count = 0
  for (let at = text.indexOf('\n', start); at >= 0 && at < end; at = text.indexOf('\n', at + 1)) count++
  return end > start && text.charCodeAt(end - 1) !== 10 ? count + 1 : count
}

/** Whether two lines are the same text; a CRLF and an LF terminator are the same. */
function sameLine(a: string, aStart: number, aEnd: number, b: string, bStart: number, bEnd: number): boolean {
  const aBody = bodyEnd(a, aStart, aEnd)
  const bBody = bodyEnd(b, bStart, bEnd)
  return (aBody < aEnd) === (bBody < bEnd) && aBody - aStart === bBody - bStart && a.slice(aStart, aBody) === b.slice(bStart, bBody)
}

function bodyEnd(text: string, start: number, end: number): number {
  if (end === start || text.charCodeAt(end - 1) !== 10) return end
  return end - 1 > start && text.charCodeAt(end - 2) === 13 ? end - 2 : end - 1
}

/** A block of whole lines, `text[start, end)`, that trimming narrows from either end. */
interface Block {
  readonly text: string
  start: number
  end: number
}

/**
 * The change between two blocks of whole lines, `before[oldStart, oldEnd)` and `after[newStart,
 * newEnd)`, whose first line is line `line` of the new text: lines equal at both ends are trimmed
 * and the rest is the change (`undefined` when nothing is left). Linear in the blocks' size.
 */
export function trimmedChange(
  before: string, oldStart: number, oldEnd: number, after: string, newStart: number, newEnd: number, line: number,
): FsLineChange | undefined {
  const old: Block = { text: before, start: oldStart, end: oldEnd }
  const now: Block = { text: after, start: newStart, end: newEnd }
  line += trimShared(old, now, 'front')
  trimShared(old, now, 'back')
  const removedLines = linesIn(before, old.start, old.end)
  const addedLines = linesIn(after, now.start, now.end)
  return removedLines + addedLines === 0 ? undefined : { line, removedLines, addedLines }
}

/** Drops the lines two blocks share at one end, while neither is empty; returns how many went. */
function trimShared(a: Block, b: Block, side: 'front' | 'back'): number {
  let trimmed = 0
  while (a.start < a.end && b.start < b.end) {
    const aCut = edgeLineCut(a, side)
    const bCut = edgeLineCut(b, side)
    const same = side === 'front'
      ? sameLine(a.text, a.start, aCut, b.text, b.start, bCut)
      : sameLine(a.text, aCut, a.end, b.text, bCut, b.end)
    if (!same) break
    if (side === 'front') {
      a.start = aCut
      b.start = bCut
    } else {
      a.end = aCut
      b.end = bCut
    }
    trimmed++
  }
  return trimmed
}

/** Where the block's first line ends (`front`), or where its last line starts (`back`). */
function edgeLineCut({ text, start, end }: Block, side: 'front' | 'back'): number {
  if (side === 'front') {
    const at = text.indexOf('\n', start)
    return at < 0 || at >= end ? end : at + 1
  }
  if (end - 2 < start) return start
  const at = text.lastIndexOf('\n', end - 2)
  return at < start ? start : at + 1
}

/**
 * The one region in which two whole texts differ, after trimming the lines they share at both
 * ends (`undefined` when they have the same lines). Linear: a bound for `write`, where a real diff
 * of a rewritten file would cost its lines times its changes.
 */
export function changedRegion(before: string, after: string): FsLineChange | undefined {
  return trimmedChange(before, 0, before.length, after, 0, after.length, 1)
}

export interface SpliceLines {
  changes: FsLineChange[]
  added: number
  removed: number
}

/**
 * The changed regions of a splice: `before[starts[i], ends[i])` (ascending, disjoint) each became
 * `inserted`, giving `after`. Each replacement touches the lines from its start to the line after
 * its end (a replaced line feed joins two lines); replacements touching a common line form one
 * region. One pass over both texts, however many replacements.
 */
export function spliceLines(before: string, after: string, starts: readonly number[], ends: readonly number[], inserted: string | readonly string[]): SpliceLines {
  const cursor = new LineCursor(before)
  // Per replacement, the inserted texts differ only in carriage returns: the same lines, other lengths.
  const first = typeof inserted === 'string' ? inserted : inserted[0] ?? ''
  const lengthAt = (i: number) => typeof inserted === 'string' ? inserted.length : inserted[i]!.length
  let insertedLines = 0
  for (let at = first.indexOf('\n'); at >= 0; at = first.indexOf('\n', at + 1)) insertedLines++
  const result: SpliceLines = { changes: [], added: 0, removed: 0 }
  // The open region, in old offsets; `shift` maps its start into the new text, `line` is its new line.
  let region: { start: number; end: number; shift: number; line: number } | undefined
  const close = (shift: number) => {
    const change = trimmedChange(before, region!.start, region!.end, after, region!.start + region!.shift, region!.end + shift, region!.line)
    if (change === undefined) return
    result.added += change.addedLines
    result.removed += change.removedLines
    if (result.changes.length < FS_MAX_LINE_CHANGES) result.changes.push(change)
  }
  let shift = 0
  let lineShift = 0
  for (let i = 0; i < starts.length; i++) {
    const startLine = cursor.lineAt(starts[i]!)
    const blockStart = cursor.lineStart()
    const endLine = cursor.lineAt(ends[i]!)
    const next = cursor.nextNewline()
    const blockEnd = next < 0 ? before.length : next + 1
    if (region !== undefined && blockStart < region.end) {
      region.end = blockEnd
    } else {
      if (region !== undefined) close(shift)
      region = { start: blockStart, end: blockEnd, shift, line: startLine + lineShift }
    }
    shift += lengthAt(i) - (ends[i]! - starts[i]!)
    lineShift += insertedLines - (endLine - startLine)
  }
  if (region !== undefined) close(shift)
  return result
}

/** Where the matches at `offsets` (ascending) are, by line: the data of `FS_AMBIGUOUS_EDIT`. */
export function occurrencesAt(text: string, offsets: readonly number[]): FsOccurrences {
  const cursor = new LineCursor(text)
  const lines: number[] = []
  for (const offset of offsets) {
    const line = cursor.lineAt(offset)
    if (lines.at(-1) === line) continue
    if (lines.length === FS_MAX_OCCURRENCE_LINES) return { count: offsets.length, lines, truncated: true }
    lines.push(line)
  }
  return { count: offsets.length, lines, truncated: false }
}
