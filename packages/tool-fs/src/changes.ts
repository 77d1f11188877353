import { type FsLineChange } from '@deepseek-ai/dsh-fs'
import { changedRegion } from '@deepseek-ai/dsh-fs/kit'

// The line count and the snippet rule are the ones both families share (dsh-tool-text).
export { countLines, snippetLines as snippetAround, type SnippetOptions } from '@deepseek-ai/dsh-tool-text'

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
