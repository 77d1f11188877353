import { normalizeLineEndings } from '@deepseek-ai/dsh-fs/kit'
import { countLines } from './lines'
import { nearestRegion } from './nearest'
import { type LineSpan, SNIPPET_CONTEXT, snippetSpan } from './snippet'

/** The most lines of a touched place a stale refusal shows, and the head shown when the place is not found. */
export const TOUCHED_MAX_LINES = 40

/** Where in the current text a refused call would have acted: the text it quoted, or the line it named. */
export type Touch = { needle: string } | { line: number }

export interface TouchedLines {
  /** `match`: the needle occurs there; `nearest`: the text closest to it; `line`: the named line; `start`: nothing found. */
  where: 'match' | 'nearest' | 'line' | 'start'
  /** The lines to show, with the snippet rule's context; missing for `start` (the caller shows the head). */
  span?: LineSpan
}

/**
 * The part of a file's current text that a refused call touches, for both families' stale
 * refusals: the first place the needle occurs (line endings normalised, as the edit matches), else
 * the nearest region, else nothing; for an insertion, the lines around the named line.
 */
export function touchedLines(text: string, touch: Touch): TouchedLines {
  const around = (start: number, end: number) => snippetSpan({ start, end }, { context: SNIPPET_CONTEXT, maxChanged: TOUCHED_MAX_LINES })
  if ('line' in touch) return { where: 'line', span: around(Math.max(1, touch.line), Math.max(1, touch.line + 1)) }
  const normalized = normalizeLineEndings(text)
  const needle = normalizeLineEndings(touch.needle)
  const at = needle.length === 0 ? -1 : normalized.indexOf(needle)
  if (at >= 0) {
    const start = countLines(normalized.slice(0, at + 1))
    return { where: 'match', span: around(start, start + needle.split('\n').length - 1) }
  }
  const near = nearestRegion(text, touch.needle)
  return near === undefined ? { where: 'start' } : { where: 'nearest', span: around(near.start, near.end) }
}
