import { normalizeLineEndings } from '@deepseek-ai/dsh-fs'
import { diffLines } from 'diff'
import { countLines } from './changes'
import { cutCodePoints, linePrefix } from './window'

/** One changed region of the new text, with a little unchanged context, as numbered lines. */
export interface ChangedRegion {
  /** 1-based lines of the new text that are new or changed. */
  start: number
  end: number
  added: number
  removed: number
  lines: { number: number; text: string }[]
}

const MAX_REGIONS = 20
const MAX_REGION_LINES = 12

/**
 * The regions where `after` differs from `before`, each with `context` unchanged lines around it
 * (regions closer than that are merged). Lines removed without replacement show the lines that now
 * meet there.
 */
export function changedRegions(before: string, after: string, context: number): ChangedRegion[] {
  const lines = normalizeLineEndings(after).split('\n')
  if (lines.at(-1) === '') lines.pop()
  const raw: { start: number; end: number; added: number; removed: number }[] = []
  let line = 1
  let current: (typeof raw)[number] | undefined
  for (const part of diffLines(normalizeLineEndings(before), normalizeLineEndings(after))) {
    const count = part.count ?? countLines(part.value)
    if (!part.added && !part.removed) {
      current = undefined
      line += count
      continue
    }
    // Adjacent removed and added parts are one change.
    if (current === undefined) raw.push(current = { start: line, end: line - 1, added: 0, removed: 0 })
    if (part.added) {
      current.added += count
      current.end += count
      line += count
    } else {
      current.removed += count
    }
  }
  const merged: typeof raw = []
  for (const region of raw) {
    const previous = merged.at(-1)
    if (previous !== undefined && region.start - previous.end <= 2 * context + 1) {
      previous.end = Math.max(previous.end, region.end)
      previous.added += region.added
      previous.removed += region.removed
    } else merged.push({ ...region })
  }
  return merged.slice(0, MAX_REGIONS).map((region) => {
    const from = Math.max(1, region.start - context)
    const to = Math.min(lines.length, Math.min(Math.max(region.end, region.start), region.start + MAX_REGION_LINES - 1) + context)
    const shown = []
    for (let number = from; number <= to; number++) shown.push({ number, text: lines[number - 1]! })
    return { ...region, lines: shown }
  })
}

export interface MultiEditData {
  path: string
  edits: number
  replacements: number
  /** Missing when the provider did not return the previous text (above its diff bound). */
  regions?: ChangedRegion[]
  maxLineLength: number
}

export function renderMultiEdit(data: MultiEditData): string {
  const { path, regions } = data
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`
  let text = `Edited ${path}: ${plural(data.edits, 'edit')}, ${plural(data.replacements, 'replacement')}`
  if (regions === undefined) return `${text}.`
  const added = regions.reduce((sum, region) => sum + region.added, 0)
  const removed = regions.reduce((sum, region) => sum + region.removed, 0)
  text += `, ${plural(added, 'line')} added, ${removed} removed.`
  for (const region of regions) {
    const where = region.end >= region.start ? `lines ${region.start}-${region.end}` : `at line ${region.start}`
    text += `\n\nChanged ${where} (+${region.added} -${region.removed}); the file there now reads:\n`
    text += region.lines.map((line) => `${linePrefix(line.number)}${cutCodePoints(line.text, data.maxLineLength) ?? line.text}`).join('\n')
  }
  return text
}
