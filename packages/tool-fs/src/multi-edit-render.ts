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
  const text = `Edited ${path}: ${plural(data.edits, 'edit')}, ${plural(data.replacements, 'replacement')}`
  const region = regions?.[0]
  if (region === undefined) return `${text}.`
  // The span from the first to the last changed line: exact bounds, not a minimal diff.
  const now = region.end >= region.start ? `lines ${region.start}-${region.end}` : `no lines (at line ${region.start})`
  const was = region.removed === 0 ? 'no lines' : `${plural(region.removed, 'line')}`
  let out = `${text}; the changes lie within ${now} of the new text, where ${was} stood before.`
  if (region.lines.length > 0) {
    out += `\nThe file from the first change now reads:\n`
    out += region.lines.map((line) => `${linePrefix(line.number)}${cutCodePoints(line.text, data.maxLineLength) ?? line.text}`).join('\n')
  }
  return out
}
