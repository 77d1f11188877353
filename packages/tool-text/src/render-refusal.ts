import type { NearestRegion } from './nearest'
import type { Family, MatchFailure, StaleRefusal } from './report'
import { cutNote, editorBlock, nothingDone, numbered, type RenderLimits, spanWords } from './render'
import { cutCodePoints, type WindowLine } from './window'

/* Why a literal match failed, and a stale refusal that shows what changed, in either family's words. */

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

/** The closest region's lines, each cut like a window line (also `apply_patch`'s closest text). */
export function regionLines(region: NearestRegion, maxLineLength: number): WindowLine[] {
  return region.lines.map((text, index) => {
    const cut = cutCodePoints(text, maxLineLength)
    return { number: region.start + index, text: cut ?? text, cut: cut !== undefined }
  })
}

/** "It differs from <argument> in: …": the closest region's differences, named for what was quoted (also `apply_patch`'s hunks). */
export function differs(region: NearestRegion, argument: string): string {
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
  if (failure.changedBy !== undefined && step !== undefined) {
    const { changedBy } = failure
    const lines = regionLines({ start: changedBy.start, end: changedBy.end, lines: changedBy.lines, differences: [] }, limits.maxLineLength)
    return `${prefix}old_string is in ${path}, but edits[${changedBy.step}] changed it first: after it, `
      + `${spanWords({ start: changedBy.start, end: changedBy.end })} read:\n${numbered(lines)}\n`
      + `Make this change in the new_string of edits[${changedBy.step}], or quote the text as it reads after it.${written}`
  }
  if (failure.empty === true) {
    return `${prefix}${path} is empty (0 lines), so old_string matches nothing in it; write the file's content with the dsh \`write\` tool.${written}`
  }
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
  if (failure.empty === true) {
    return `No replacement was performed: ${path} is empty, so old_str matches nothing in it; `
      + 'to give it content, use the `insert` command with `insert_line` 0 and the content as `new_str`.'
  }
  const head = `No replacement was performed, old_str \`${failure.needle}\` did not appear verbatim in ${path}.`
  if (region === undefined) return `${head} No line there resembles its first or last line, even ignoring whitespace and quotes; check that old_str is text of this file.`
  const lines = regionLines(region, limits.maxLineLength)
  return `${head} The closest text is ${spanWords({ start: region.start, end: region.end })}:\n${editorBlock(lines, limits.maxLineLength)}${differs(region, 'old_str')}\n`
    + `Copy old_str exactly from these lines (without the line numbers); ${NEVER_APPROXIMATE}.`
}

/** A stale refusal that shows what changed: it counts as the read it replaces, so the retry is the next step. */
export function renderStale(refusal: StaleRefusal, limits: RenderLimits): string {
  const { path, call } = refusal
  const editor = call === 'str_replace' || call === 'insert'
  if (refusal.kind === 'stale-absent') {
    return editor
      ? `${nothingDone(call)}: ${path} has been deleted since you last viewed it. That counts as viewing it absent: to make it again, use the \`create\` command.`
      : `${path} no longer exists, so nothing was changed. This counts as finding it absent: the dsh \`write\` tool creates it anew.`
  }
  const { lines } = refusal
  if (editor) {
    const body = lines.length === 0 ? '(the file is empty)' : editorBlock(lines, limits.maxLineLength)
    const next = call === 'insert' ? 'retry `insert` with `insert_line` chosen from these lines' : 'retry `str_replace` with `old_str` copied from these lines'
    return `${nothingDone(call)}: ${path} has changed since you last viewed it. Here's the result of running \`cat -n\` on a snippet of the current file:\n`
      + `${body}\nThis counts as viewing the current version: ${next}.`
  }
  const first = lines[0]?.number ?? 0
  const last = lines.at(-1)?.number ?? 0
  const span = lines.length === 0 ? 'it is empty' : `lines ${first}-${last} of ${refusal.totalLines}`
  const lead = refusal.where === 'match' ? 'old_string still occurs there; ' : refusal.where === 'nearest' ? 'the text closest to old_string; ' : ''
  const body = lines.length === 0 ? '' : `\n${numbered(lines)}`
  const cut = cutNote(lines, limits.maxLineLength, 'fs')
  const next = call === 'write' ? 'retry the call if its content still fits the file' : 'retry with old_string copied from these lines'
  return `${refusal.reason.replace(/[.\s]+$/, '')}, so nothing was changed. Its current text (${lead}${span}):${body}`
    + `${cut === undefined ? '' : `\n${cut}`}\n[This counts as reading the current version: ${next}.]`
}
