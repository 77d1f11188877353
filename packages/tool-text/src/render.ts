import type { NearestRegion } from './nearest'
import type { EditedReport, Family, InsertedReport, MatchFailure, MultiEditedReport, MutationReport, StepReport, WrittenReport } from './report'
import type { LineSpan } from './snippet'
import { cutCodePoints, linePrefix, type WindowLine } from './window'

/*
 * The one render step of both families for what a literal edit did or why its match failed: the
 * sentences differ by family (the editor keeps the wording models know from Anthropic's tool), the
 * numbering, spans, snippets, occurrence lines, closest text and cut notes are these functions.
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
export function cutNote(lines: readonly WindowLine[], maxLineLength: number, family: Family): string | undefined {
  const cut = lines.filter((line) => line.cut)
  if (cut.length === 0) return undefined
  const numbers = [...new Set(cut.map((line) => line.number))]
  const which = numbers.length === 1 ? `Line ${numbers[0]} is` : `Lines ${numberList(numbers)} are`
  const head = `[${which} cut: a line is shown up to ${maxLineLength} characters.`
  if (family === 'editor') return `${head}]`
  const first = cut[0]!
  const next = (first.column ?? 1) + [...first.text].length
  return `${head} To see more of line ${first.number}, call the dsh \`read\` tool with offset=${first.number}, limit=1, column=${next}.]`
}

/** The editor's numbered block: the lines, then on the next line the note naming the cut ones. */
function editorBlock(lines: readonly WindowLine[], maxLineLength: number): string {
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

export function renderReport(report: MutationReport, family: Family, limits: RenderLimits): string {
  switch (report.kind) {
    case 'edited': return family === 'fs' ? editedFs(report, limits) : editedEditor(report, limits)
    case 'inserted': return inserted(report, limits)
    case 'multi-edited': return multiEdited(report, limits)
    case 'written': return family === 'fs' ? writtenFs(report, limits) : `File created successfully at: ${report.path}`
  }
}

/** `line 4` or `lines 4-9`: `count` lines from `start`. */
function countedSpan(start: number, count: number): string {
  return count === 1 ? `line ${start}` : `lines ${start}-${start + count - 1}`
}

/** Which old lines an overwrite replaced and with how many, then the lines around them. */
function writtenFs(report: WrittenReport, limits: RenderLimits): string {
  const { path, lines, counts, first } = report
  if (report.operation === 'create') return `Created ${path} (${plural(lines, 'line')}).`
  if (counts === undefined) return `Updated ${path} (${plural(lines, 'line')} now).`
  if (first === undefined) return `Updated ${path}: the content is unchanged (${plural(lines, 'line')}).`
  const { start } = first.span
  let what: string
  if (counts.removed === 0) what = `added ${countedSpan(start, counts.added)}`
  else if (counts.added === 0) what = `removed ${countedSpan(start, counts.removed)}`
  else if (counts.added === counts.removed) what = `changed ${countedSpan(start, counts.added)}`
  else what = `replaced ${countedSpan(start, counts.removed)} with ${plural(counts.added, 'line')}`
  return `Updated ${path}: ${what} (${plural(lines, 'line')} now).${aroundChange('the change', first.snippet, limits.maxLineLength)}`
}

function editedFs(report: EditedReport, limits: RenderLimits): string {
  const { path, counts } = report
  let text = `Edited ${path}: ${plural(report.replacements, 'replacement')}`
  text += counts === undefined ? '.' : `, ${plural(counts.added, 'line')} added, ${counts.removed} removed.`
  return text + aroundChange(report.replacements > 1 ? 'the first replacement' : 'the change', report.first?.snippet ?? [], limits.maxLineLength)
}

function editedEditor(report: EditedReport, limits: RenderLimits): string {
  return `The file ${report.path} has been edited. Here's the result of running \`cat -n\` on a snippet of ${report.path}:\n`
    + `${editorBlock(report.first?.snippet ?? [], limits.maxLineLength)}\nReview the changes and make sure they are as expected. Edit the file again if necessary.`
}

function inserted(report: InsertedReport, limits: RenderLimits): string {
  return `The file ${report.path} has been edited. Here's the result of running \`cat -n\` on a snippet of the edited file:\n`
    + `${editorBlock(report.first.snippet, limits.maxLineLength)}\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). `
    + 'Edit the file again if necessary.'
}

/** Steps whose snippet a `multi_edit` result shows; the others are named with their lines only. */
export const MULTI_EDIT_SNIPPETS = 10
/** Regions named per step; the rest are counted. */
const STEP_SPANS = 5

function multiEdited(report: MultiEditedReport, limits: RenderLimits): string {
  const head = `Edited ${report.path}: ${plural(report.edits, 'edit')}, ${plural(report.replacements, 'replacement')}`
  if (report.steps !== undefined) {
    const blocks = report.steps.map((step) => stepBlock(step))
    const shown = report.steps.flatMap((step) => step.snippet)
    const cut = cutNote(shown, limits.maxLineLength, 'fs')
    return `${head}.\n${blocks.join('\n')}${cut === undefined ? '' : `\n\n${cut}`}`
  }
  const merged = report.merged
  if (merged === undefined) return `${head}.`
  // The span from the first to the last changed line: exact bounds, not a minimal diff.
  const now = merged.span.end >= merged.span.start ? `lines ${merged.span.start}-${merged.span.end}` : `no lines (at line ${merged.span.start})`
  const was = merged.removed === 0 ? 'no lines' : plural(merged.removed, 'line')
  let out = `${head}; the changes lie within ${now} of the new text, where ${was} stood before.`
  if (merged.snippet.length > 0) out += `\nThe file from the first change now reads:\n${numbered(merged.snippet)}`
  return out
}

/** `edits[1] (2 replacements) changed lines 4-5, line 9 (the first shown):` and its lines, in lines of the final text. */
function stepBlock(step: StepReport): string {
  const which = `edits[${step.index}] (${plural(step.replacements, 'replacement')})`
  if (step.spans.length === 0) return `${which} changed no line, only line endings.`
  const spans = adjacentMerged(step.spans)
  const named = spans.slice(0, STEP_SPANS).map(spanWords)
  const more = spans.length > STEP_SPANS ? ` and ${spans.length - STEP_SPANS} more regions` : ''
  const where = `${named.join(', ')}${more}`
  if (step.snippet.length === 0) return `${which} changed ${where}.`
  return `${which} changed ${where}${spans.length > 1 ? ' (the first shown)' : ''}:\n${numbered(step.snippet)}`
}

/** Spans that follow one another line by line, named as one: replacements on lines 12 to 21 are `lines 12-21`. */
function adjacentMerged(spans: readonly LineSpan[]): LineSpan[] {
  const merged: LineSpan[] = []
  for (const span of spans) {
    const last = merged.at(-1)
    if (last !== undefined && last.end >= last.start && span.end >= span.start && span.start <= last.end + 1) last.end = Math.max(last.end, span.end)
    else merged.push({ ...span })
  }
  return merged
}

export function renderMatchFailure(failure: MatchFailure, family: Family, limits: RenderLimits): string {
  if (failure.kind === 'ambiguous') return family === 'fs' ? ambiguousFs(failure) : ambiguousEditor(failure)
  return family === 'fs' ? noMatchFs(failure, limits) : noMatchEditor(failure, limits)
}

type Ambiguous = Extract<MatchFailure, { kind: 'ambiguous' }>
type NoMatch = Extract<MatchFailure, { kind: 'no-match' }>

const stepPrefix = (step: number | undefined) => step === undefined ? '' : `edits[${step}]: `
/** The text a failed step was matched against, when earlier steps changed it first. */
const afterEarlier = (step: number | undefined) => step === undefined || step === 0 ? '' : ` (after edits[0..${step - 1}] were applied to the text)`

function ambiguousFs(failure: Ambiguous): string {
  const { occurrences, step } = failure
  let where = ''
  if (occurrences !== undefined) {
    // Each line once: two matches on one line are "all on line 1", never "lines 1, 1".
    const shown = occurrences.lines.slice(0, 10)
    const more = occurrences.truncated || occurrences.lines.length > 10 ? ', …' : ''
    where = occurrences.lines.length === 1 ? ` (all on line ${shown[0]})` : ` (lines ${shown.join(', ')}${more})`
  }
  const times = occurrences === undefined ? 'more than once' : `${occurrences.count} times`
  return `${stepPrefix(step)}old_string occurs ${times} in ${failure.path}${where}${afterEarlier(step)}; `
    + 'include more surrounding lines in old_string so it matches once, or set replace_all to true'
}

function ambiguousEditor(failure: Ambiguous): string {
  const { occurrences } = failure
  let where = ''
  if (occurrences !== undefined) {
    // Anthropic's list of lines, each line once; matches sharing one line are counted, never listed twice.
    where = occurrences.lines.length === 1
      ? `: ${occurrences.count} occurrences on line ${occurrences.lines[0]}`
      : ` in lines [${occurrences.lines.join(', ')}${occurrences.truncated ? ', …' : ''}]`
  }
  return `No replacement was performed. Multiple occurrences of old_str \`${failure.needle}\`${where}. Please ensure it is unique`
}

/** The closest region's lines, each cut like a window line. */
function regionLines(region: NearestRegion, maxLineLength: number): WindowLine[] {
  return region.lines.map((text, index) => {
    const cut = cutCodePoints(text, maxLineLength)
    return { number: region.start + index, text: cut ?? text, cut: cut !== undefined }
  })
}

function differs(region: NearestRegion, argument: string): string {
  if (region.differences.length === 0) return ''
  const list = region.differences.join('; ')
  return `\nIt differs from ${argument} in: ${argument === 'old_string' ? list : list.replaceAll('old_string', argument)}.`
}

const NEVER_APPROXIMATE = 'the match is never approximate'

function noMatchFs(failure: NoMatch, limits: RenderLimits): string {
  const { path, region, step } = failure
  const prefix = stepPrefix(step)
  const whose = step === undefined ? 'old_string' : `the old_string of edits[${step}]`
  const written = step === undefined ? '' : ' Nothing was written.'
  if (region === undefined) {
    return `${prefix}old_string was not found in ${path}${afterEarlier(step)}, and no line there resembles its first or last line, even ignoring `
      + `whitespace and quotes; check that ${whose} is text of this file.${written}`
  }
  const lines = regionLines(region, limits.maxLineLength)
  const cut = cutNote(lines, limits.maxLineLength, 'fs')
  return `${prefix}old_string was not found in ${path}${afterEarlier(step)}. The closest text is ${spanWords({ start: region.start, end: region.end })}`
    + `${step !== undefined && step > 0 ? ' of that text' : ''}:\n${numbered(lines)}${cut === undefined ? '' : `\n${cut}`}${differs(region, 'old_string')}\n`
    + `Copy ${whose} exactly from these lines (without the line numbers); ${NEVER_APPROXIMATE}.${written}`
}

function noMatchEditor(failure: NoMatch, limits: RenderLimits): string {
  const { path, region } = failure
  const head = `No replacement was performed, old_str \`${failure.needle}\` did not appear verbatim in ${path}.`
  if (region === undefined) return head
  const lines = regionLines(region, limits.maxLineLength)
  return `${head} The closest text is ${spanWords({ start: region.start, end: region.end })}:\n${editorBlock(lines, limits.maxLineLength)}${differs(region, 'old_str')}\n`
    + `Copy old_str exactly from these lines (without the line numbers); ${NEVER_APPROXIMATE}.`
}
