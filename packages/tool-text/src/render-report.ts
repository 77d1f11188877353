import type { EditedReport, Family, InsertedReport, MultiEditedReport, MutationReport, StepReport, WrittenReport } from './report'
import type { LineSpan } from './snippet'
import { aroundChange, cutNote, editorBlock, numbered, plural, type RenderLimits, spanWords } from './render'

/*
 * The one render step of both families for what a mutation did: the sentences differ by family
 * (the editor keeps the wording models know from Anthropic's tool), the spans and snippets do not.
 */

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
