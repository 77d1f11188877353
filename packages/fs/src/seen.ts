import type { FsLineChange, FsSeenLines, FsSeenPart } from './types'

/*
 * The algebra of `FsSeenLines`: what a session was shown of one version, as whole-line ranges and
 * parts of lines cut at the display limit. Every function is pure and returns a normalised value
 * (ranges ascending, disjoint and not touching; parts only for lines not seen whole, merged per
 * line). Forgetting is always safe here: a line dropped from `seen` can only cause a refusal.
 */

/** Ranges and parts kept at most; what lies past them is forgotten (seen again by a read). */
export const FS_MAX_SEEN_RANGES = 10_000
export const FS_MAX_SEEN_PARTS = 10_000

/** Every line of a text of `total` lines: what a session knows of a version it wrote whole. */
export function seenEverything(total: number): FsSeenLines {
  return { ranges: total > 0 ? [[1, total]] : [], total }
}

/** `a` and `b` together; `b`'s total wins (it is the later word on the same version). */
export function seenUnion(a: FsSeenLines | undefined, b: FsSeenLines | undefined): FsSeenLines {
  const total = b?.total ?? a?.total
  const ranges = mergeRanges([...(a?.ranges ?? []), ...(b?.ranges ?? [])])
  return normalised(ranges, [...(a?.parts ?? []), ...(b?.parts ?? [])], total)
}

/**
 * What was seen of a version carries over to the version `changes` made of it. A line outside every
 * change is the same line, moved by the lines added and removed above it. A change's new lines were
 * seen when it only added lines (they are the session's own text) or when every line it replaced
 * was seen whole; otherwise they may hold text of a line the session never saw in full.
 */
export function seenCarried(seen: FsSeenLines | undefined, changes: readonly FsLineChange[]): FsSeenLines {
  if (seen === undefined) seen = { ranges: [] }
  const ranges: Array<[number, number]> = []
  const parts: FsSeenPart[] = []
  let oldLine = 1
  let shift = 0
  const keep = (from: number, to: number) => {
    // Old lines [from, to] untouched by any change: moved by `shift`.
    for (const [first, last] of seen!.ranges) {
      const start = Math.max(first, from)
      const end = Math.min(last, to)
      if (start <= end) ranges.push([start + shift, end + shift])
    }
    for (const part of seen!.parts ?? []) if (part.line >= from && part.line <= to) parts.push({ ...part, line: part.line + shift })
  }
  for (const change of changes) {
    const oldStart = change.line - shift
    keep(oldLine, oldStart - 1)
    const replaced = change.removedLines === 0 || covers(seen.ranges, oldStart, oldStart + change.removedLines - 1)
    if (replaced && change.addedLines > 0) ranges.push([change.line, change.line + change.addedLines - 1])
    oldLine = oldStart + change.removedLines
    shift += change.addedLines - change.removedLines
  }
  keep(oldLine, Number.MAX_SAFE_INTEGER)
  const total = seen.total === undefined ? undefined : seen.total + shift
  return normalised(mergeRanges(ranges), parts, total)
}

/**
 * Where the first character the session was not shown is: a line, and a column when that line was
 * shown in part from its start. `undefined` when every line was seen, which needs the total known.
 */
export function firstUnseen(seen: FsSeenLines | undefined): { line: number; column?: number } | undefined {
  let line = 1
  for (const [first, last] of seen?.ranges ?? []) {
    if (first > line) break
    line = Math.max(line, last + 1)
  }
  if (seen?.total !== undefined && line > seen.total) return undefined
  const part = seen?.parts?.find((candidate) => candidate.line === line && candidate.from === 1)
  return part === undefined ? { line } : { line, column: part.to + 1 }
}

/** Whether every line of the version was seen whole (an empty version is seen once its total is known). */
export function seenAll(seen: FsSeenLines | undefined): boolean {
  return seen?.total !== undefined && firstUnseen(seen) === undefined
}

/** How many lines were seen whole. */
export function seenLineCount(seen: FsSeenLines | undefined): number {
  let count = 0
  for (const [first, last] of seen?.ranges ?? []) count += last - first + 1
  return count
}

/** Whether `ranges` (normalised) hold every line from `from` to `to`. */
function covers(ranges: ReadonlyArray<readonly [number, number]>, from: number, to: number): boolean {
  return ranges.some(([first, last]) => first <= from && last >= to)
}

function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = ranges.filter(([first, last]) => first >= 1 && last >= first).sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const [first, last] of sorted) {
    const previous = merged.at(-1)
    if (previous !== undefined && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last)
    else merged.push([first, last])
  }
  return merged
}

/**
 * Parts merged per line (overlapping or touching spans join); a line whose joined span runs from
 * its first character to its last becomes a whole line; parts of whole lines are dropped.
 */
function normalised(ranges: Array<[number, number]>, parts: FsSeenPart[], total: number | undefined): FsSeenLines {
  // Nothing past the last line is kept: a line number seen there cannot move into a later version.
  if (total !== undefined) {
    ranges = ranges.filter(([first]) => first <= total).map(([first, last]): [number, number] => [first, Math.min(last, total)])
    parts = parts.filter((part) => part.line <= total)
  }
  const joined: FsSeenPart[] = []
  const sorted = parts.filter((part) => part.from >= 1 && part.to >= part.from - 1 && !covers(ranges, part.line, part.line))
    .sort((a, b) => a.line - b.line || a.from - b.from)
  for (const part of sorted) {
    const previous = joined.at(-1)
    if (previous !== undefined && previous.line === part.line && part.from <= previous.to + 1) {
      if (part.to >= previous.to) {
        previous.to = part.to
        previous.end = part.end
      } else previous.end ||= part.end
    } else joined.push({ ...part })
  }
  const whole = joined.filter((part) => part.from === 1 && part.end)
  if (whole.length > 0) ranges = mergeRanges([...ranges, ...whole.map((part): [number, number] => [part.line, part.line])])
  const left = joined.filter((part) => !(part.from === 1 && part.end)).slice(0, FS_MAX_SEEN_PARTS)
  const result: FsSeenLines = { ranges: ranges.slice(0, FS_MAX_SEEN_RANGES) }
  if (left.length > 0) result.parts = left
  if (total !== undefined) result.total = total
  return result
}
