import { type FsLineChange } from '@deepseek-ai/dsh-fs'
import { changedRegion } from '@deepseek-ai/dsh-fs/kit'
import { buildWindow, type WindowLine } from './window'

/** The number of lines `cat -n` would show: a final line feed does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0
  let count = 1
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++
  return text.endsWith('\n') ? count - 1 : count
}

export interface LineChanges {
  added: number
  removed: number
  /** The first changed region, in 1-based lines of the new text (empty when lines were only removed). */
  first?: { start: number; end: number }
}

/** `LineChanges` from a provider's line data: the totals, and the first region. */
export function fromRegions(totals: { added: number; removed: number }, first: FsLineChange | undefined): LineChanges {
  if (first === undefined) return { added: totals.added, removed: totals.removed }
  return { added: totals.added, removed: totals.removed, first: { start: first.line, end: first.line + first.addedLines - 1 } }
}

/**
 * The lines that differ between two texts, as one region: the lines both share at the start and
 * at the end are trimmed, the rest counts as removed and added. Linear in the texts' size (a true
 * line diff costs lines times changes, seconds of a blocked event loop for a rewritten file), so a
 * change at the top and one at the bottom count everything between them. Line endings are compared
 * normalised: a CRLF file rewritten by the provider in CRLF must not count every line as changed.
 */
export function lineChanges(before: string, after: string): LineChanges {
  const region = changedRegion(before, after)
  return fromRegions({ added: region?.addedLines ?? 0, removed: region?.removedLines ?? 0 }, region)
}

export interface SnippetOptions {
  /** Unchanged lines shown either side. */
  context: number
  /** The longest changed region shown before the snippet stops. */
  maxChanged: number
  maxLineLength: number
}

/**
 * Numbered lines of `after` around its first changed region. The lines before it are counted, not
 * kept, so the cost follows the snippet's position, never a copy of the whole text.
 */
export async function snippetAround(after: string, first: LineChanges['first'], options: SnippetOptions): Promise<WindowLine[]> {
  if (first === undefined) return []
  const from = Math.max(1, first.start - options.context)
  const to = Math.min(first.end, first.start + options.maxChanged - 1) + options.context
  if (to < from) return []
  const window = await buildWindow([after], { offset: from, limit: to - from + 1, maxLineLength: options.maxLineLength, maxBytes: Number.POSITIVE_INFINITY })
  return window.lines
}
