import { buildWindow, type WindowLine } from './window'

/**
 * Lines `start..end` (1-based, inclusive) of a text. `end < start` when lines were only removed:
 * the removal lies just before line `start`.
 */
export interface LineSpan {
  start: number
  end: number
}

/** Unchanged lines shown either side of a change, in both families (four, as the editor models know shows). */
export const SNIPPET_CONTEXT = 4
/** The longest changed region a snippet shows; a longer one is shown from its start. */
export const SNIPPET_MAX_CHANGED = 12

export interface SnippetOptions {
  /** Unchanged lines shown either side. Default `SNIPPET_CONTEXT`. */
  context?: number
  /** The longest changed region shown before the snippet stops. Default `SNIPPET_MAX_CHANGED`. */
  maxChanged?: number
  maxLineLength: number
}

/** The lines a snippet of `span` shows (not yet clipped to the end of the text). */
export function snippetSpan(span: LineSpan, options: Omit<SnippetOptions, 'maxLineLength'> = {}): LineSpan {
  const context = options.context ?? SNIPPET_CONTEXT
  const maxChanged = options.maxChanged ?? SNIPPET_MAX_CHANGED
  return { start: Math.max(1, span.start - context), end: Math.min(span.end, span.start + maxChanged - 1) + context }
}

/**
 * The one snippet rule of both families: numbered lines of `text` around `span`, `context` lines
 * either side, the changed lines up to `maxChanged`, each line cut like a window line. The lines
 * before it are counted, not kept, so the cost follows the snippet's position, never a copy of the
 * whole text.
 */
export async function snippetLines(text: string, span: LineSpan | undefined, options: SnippetOptions): Promise<WindowLine[]> {
  if (span === undefined) return []
  const { start, end } = snippetSpan(span, options)
  if (end < start) return []
  const window = await buildWindow([text], { offset: start, limit: end - start + 1, maxLineLength: options.maxLineLength, maxBytes: Number.POSITIVE_INFINITY })
  return window.lines
}
