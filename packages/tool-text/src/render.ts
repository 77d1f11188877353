import type { Family } from './report'
import type { LineSpan } from './snippet'
import { linePrefix, type WindowLine } from './window'

/*
 * The pieces every text of both families is made of: numbering, cut notes, spans, counts. The
 * sentences around them are in render-report.ts (what an edit did) and render-refusal.ts (why a
 * match failed, a stale refusal that shows what changed).
 */

export interface RenderLimits {
  maxLineLength: number
}

/** `cat -n` lines: the number right-aligned to width 6, a tab, the text. */
export function numbered(lines: readonly WindowLine[]): string {
  return lines.map((line) => `${linePrefix(line.number)}${line.text}`).join('\n')
}

/**
 * The note under lines shown cut. The fs family says how to see the rest (`read` with a column);
 * the editor's `view` has no column, so it only says that and where.
 */
export function cutNote(lines: readonly WindowLine[], maxLineLength: number, family: Family, options: { lineView?: boolean } = {}): string | undefined {
  const cut = lines.filter((line) => line.cut)
  if (cut.length === 0) return undefined
  const numbers = [...new Set(cut.map((line) => line.number))]
  const which = numbers.length === 1 ? `Line ${numbers[0]} is` : `Lines ${numberList(numbers)} are`
  const first = cut[0]!
  // The full length, so the model knows how far the line goes before it asks for more of it.
  const length = first.length === undefined ? '' : ` (line ${first.number} has ${first.length} characters)`
  const head = `[${which} cut: a line is shown up to ${maxLineLength} characters${length}.`
  // The editor has no column argument: a one-line view_range shows its line whole (up to the byte
  // budget), so that is the next step, unless this already is that view.
  if (family === 'editor') {
    // In that view the line is cut by the view's byte budget, not by `maxLineLength`: say exactly what is shown.
    if (options.lineView === true) {
      const of = first.length === undefined ? '' : ` of ${first.length}`
      return `[Line ${first.number} is cut: its first ${[...first.text].length}${of} characters are shown, all that one view holds.]`
    }
    return `${head} To see all of line ${first.number}, view again with view_range [${first.number}, ${first.number}].]`
  }
  const next = (first.column ?? 1) + [...first.text].length
  return `${head} To see more of line ${first.number}, call the dsh \`read\` tool with offset=${first.number}, limit=1, column=${next}.]`
}

/** The editor's numbered block: the lines, then on the next line the note naming the cut ones. */
export function editorBlock(lines: readonly WindowLine[], maxLineLength: number): string {
  const cut = cutNote(lines, maxLineLength, 'editor')
  return cut === undefined ? numbered(lines) : `${numbered(lines)}\n${cut}`
}

/** `line 4`, `lines 4-9`, or, for lines only removed, `a removal before line 4`. */
export function spanWords(span: LineSpan): string {
  if (span.end < span.start) return `a removal before line ${span.start}`
  return span.start === span.end ? `line ${span.start}` : `lines ${span.start}-${span.end}`
}

/** `4, 9, 12`, or the first ten and how many more. */
export function numberList(numbers: readonly number[]): string {
  return numbers.length <= 10 ? numbers.join(', ') : `${numbers.slice(0, 10).join(', ')} and ${numbers.length - 10} more`
}

export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`
}

/** The fs family's lines around a change of `edit` or `write`, after its first sentence. */
export function aroundChange(where: string, snippet: readonly WindowLine[], maxLineLength: number): string {
  if (snippet.length === 0) return ''
  const cut = cutNote(snippet, maxLineLength, 'fs')
  return `\nThe file around ${where} now reads:\n${numbered(snippet)}${cut === undefined ? '' : `\n\n${cut}`}`
}

/** `No replacement was performed` / `No insertion was performed`: how the editor starts every refusal. */
export function nothingDone(call: 'str_replace' | 'insert' | 'view' | 'create' | 'undo_edit'): string {
  if (call === 'str_replace') return 'No replacement was performed'
  if (call === 'insert') return 'No insertion was performed'
  return 'Nothing was changed'
}
