import { buildWindow, type WindowLine } from './window'

/** Limits on one window of a file shown to the model (the same three as `read`). */
export interface WindowLimits {
  maxLines: number
  /** Characters kept of one line; a longer line is shown cut and flagged. */
  maxLineLength: number
  /** UTF-8 bytes of the numbered output. */
  maxBytes: number
}

export interface TextWindow {
  lines: WindowLine[]
  /** The first requested line left out because a limit was hit; absent when the window is complete. */
  nextLine?: number
  limit?: 'lines' | 'bytes'
  /** The file's line count, known only when the stream was read to its end. */
  totalLines?: number
}

/**
 * Lines `start..end` (1-based, inclusive; `end` undefined = to the end of the file), cut by the
 * limits. The window itself is `read`'s (`buildWindow`): it stops consuming the
 * stream once the window is settled, so the cost follows the window, never the rest of the file.
 */
export async function rangeWindow(
  chunks: AsyncIterable<string> | Iterable<string>,
  start: number,
  end: number | undefined,
  limits: WindowLimits,
  /** The number of the stream's first line, when the stream starts past the file's beginning. */
  firstLine = 1,
): Promise<TextWindow> {
  const span = end === undefined ? limits.maxLines : Math.min(limits.maxLines, end - start + 1)
  const window = await buildWindow(chunks, { offset: start, firstLine, limit: span, maxLineLength: limits.maxLineLength, maxBytes: limits.maxBytes })
  const total = window.totalLines === undefined ? {} : { totalLines: window.totalLines }
  // A window that stopped at the range's own end is complete, even though the file goes on.
  const complete = window.end === 'eof' || (end !== undefined && window.lines.at(-1)?.number === end)
  if (complete || window.nextOffset === undefined) return { lines: window.lines, ...total }
  return { lines: window.lines, nextLine: window.nextOffset, limit: window.end === 'bytes' ? 'bytes' : 'lines', ...total }
}
