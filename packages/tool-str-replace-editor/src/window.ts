// TODO(tool-fs): `@deepseek-ai/dsh-tool-fs` is writing the shared read window (`cat -n` numbering,
// line caps, streaming). Its src was empty when this package was written; once it exports its
// window/number helpers, import them here and delete this module.

/** Limits on one window of a file shown to the model. */
export interface WindowLimits {
  maxLines: number
  /** Characters (UTF-16 units) kept of one line; the rest is reported as cut. */
  maxLineLength: number
  /** UTF-8 bytes of the numbered output. */
  maxBytes: number
}

export interface NumberedLine {
  number: number
  text: string
  /** Characters of the line that were left out because of `maxLineLength`. */
  cut: number
}

export interface TextWindow {
  lines: NumberedLine[]
  /** The first requested line left out because a limit was hit; absent when the window is complete. */
  nextLine?: number
  limit?: 'lines' | 'bytes'
  /** The file's line count, known only when the stream was read to its end. */
  totalLines?: number
}

/** `cat -n`: the number right-aligned to width 6, a tab, the text. */
export function numberLine(line: NumberedLine): string {
  const head = `${String(line.number).padStart(6)}\t${line.text}`
  return line.cut > 0 ? `${head}… [${line.cut} more characters]` : head
}

/** Cuts at `max` without splitting a surrogate pair. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

const encoder = new TextEncoder()

/**
 * Collects lines `start..end` (1-based, inclusive; `end` undefined = to the end) from a text stream.
 * Reading stops as soon as the window is complete or a limit is hit, so the cost follows the
 * window and the lines before it, never the rest of the file. Lines end at LF; a CR before it is
 * not shown. Memory per line is bounded by `maxLineLength` however long the line is.
 */
export async function collectWindow(
  chunks: AsyncIterable<string>,
  start: number,
  end: number | undefined,
  limits: WindowLimits,
): Promise<TextWindow> {
  const lines: NumberedLine[] = []
  let bytes = 0
  let number = 1
  let kept = ''
  let length = 0
  let last = ''

  // Ends the current line; answers the window once it is complete or limited, so reading stops.
  const finish = (): TextWindow | undefined => {
    if (last === '\r') {
      length--
      if (kept.length > length) kept = kept.slice(0, length)
    }
    const current = number++
    if (current < start) return undefined
    const text = cutAt(kept, limits.maxLineLength)
    const line = { number: current, text, cut: length - text.length }
    const size = encoder.encode(numberLine(line)).length + 1
    if (lines.length >= limits.maxLines) return { lines, nextLine: current, limit: 'lines' }
    if (lines.length > 0 && bytes + size > limits.maxBytes) return { lines, nextLine: current, limit: 'bytes' }
    lines.push(line)
    bytes += size
    return end === undefined || current < end ? undefined : { lines }
  }

  for await (const chunk of chunks) {
    let pos = 0
    while (pos <= chunk.length) {
      const newline = chunk.indexOf('\n', pos)
      const stop = newline < 0 ? chunk.length : newline
      if (stop > pos) {
        // Keep one character beyond the cap so a CR at the cap can still be told apart.
        if (number >= start && kept.length <= limits.maxLineLength) {
          kept += chunk.slice(pos, Math.min(stop, pos + limits.maxLineLength + 1 - kept.length))
        }
        length += stop - pos
        last = chunk[stop - 1]!
      }
      if (newline < 0) break
      const done = finish()
      if (done !== undefined) return done
      kept = ''
      length = 0
      last = ''
      pos = newline + 1
    }
  }
  // A last line without a terminator still counts, as it does for `cat -n`.
  const done = length > 0 ? finish() : undefined
  return { ...(done ?? { lines }), totalLines: number - 1 }
}

/** A string as a one-chunk stream, for windows over text already in memory. */
export async function* single(text: string): AsyncIterable<string> {
  yield text
}
