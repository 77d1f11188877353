import { lineChanges, snippetAround } from './changes'
import { cutCodePoints, linePrefix } from './window'

/** The changed region of the new text, with a little unchanged context, as numbered lines. */
export interface ChangedRegion {
  /** 1-based lines of the new text that are new or changed. */
  start: number
  end: number
  added: number
  removed: number
  lines: { number: number; text: string }[]
}

const MAX_REGION_LINES = 12

/**
 * Where `after` differs from `before`, as one region: the lines both share at either end are
 * trimmed (linear in the texts, never a line diff on the event loop), so edits far apart count the
 * lines between them too. The snippet shows the region's start with `context` lines around it.
 */
export async function changedRegions(before: string, after: string, context: number, maxLineLength: number): Promise<ChangedRegion[]> {
  const changes = lineChanges(before, after)
  if (changes.first === undefined) return []
  const { start, end } = changes.first
  const lines = await snippetAround(after, changes.first, { context, maxChanged: MAX_REGION_LINES, maxLineLength })
  return [{ start, end, added: changes.added, removed: changes.removed, lines }]
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
