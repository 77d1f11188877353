import { spliceLiteral } from './edit'
import { FsEditStepError, FsError } from './errors'
import { decodeText } from './decode'
import { FS_MAX_LINE_CHANGES } from './lines'
import { encodeText } from './utf8'
import type { FsEditRequest, FsEditStep, FsLineChange } from './types'

export interface AppliedEdits {
  text: string
  /** Replacements made by each step, in order. */
  replacements: number[]
  /** Where each step landed, in lines of the final text. */
  steps: FsEditStep[]
}

/**
 * Applies literal edits one after another to one text, each to the result of the one before (so a
 * later step may match text an earlier step wrote). The first step that fails stops everything.
 */
export function applyEdits(text: string, edits: readonly FsEditRequest[], path?: string): AppliedEdits {
  if (edits.length === 0) throw new FsError('FS_EDIT_NOT_FOUND', 'no edits were given', { path })
  const replacements: number[] = []
  const steps: FsEditStep[] = []
  let tracked = 0
  let current = text
  for (const [index, edit] of edits.entries()) {
    try {
      const spliced = spliceLiteral(current, edit, path)
      current = spliced.text
      replacements.push(spliced.replacements)
      // The regions of earlier steps move with the lines this step added or removed above them.
      for (const step of steps) step.changes = mapChanges(step.changes, spliced.lines.changes)
      const kept = spliced.lines.changes.slice(0, Math.max(0, FS_MAX_LINE_CHANGES - tracked))
      tracked += kept.length
      steps.push({ replacements: spliced.replacements, changes: kept })
    } catch (error) {
      if (!FsError.is(error)) throw error
      const earlier = index === 0 ? '' : ` (after edits[0..${index - 1}] were applied to the text)`
      const occurrences = error.occurrences === undefined ? {} : { occurrences: error.occurrences }
      throw new FsEditStepError(error.code, `edits[${index}]: ${error.message}${earlier}`, index, { cause: error, path, ...occurrences })
    }
  }
  return { text: current, replacements, steps }
}

/**
 * Where earlier regions (each `line .. line + addedLines - 1` before `later` was applied) lie after
 * a later step's `changes` (disjoint, ascending, in lines of the step's result). Lines added or
 * removed above a region move it; a later change that overlaps it widens it to cover both, so a
 * region always names every line of the final text that its edit's text may still be on. Only the
 * changes a step reported move regions: past the `FS_MAX_LINE_CHANGES`-th of one step they may be off.
 */
export function mapChanges(regions: readonly FsLineChange[], later: readonly FsLineChange[]): FsLineChange[] {
  if (later.length === 0 || regions.length === 0) return [...regions]
  // Old lines [oldStart[i], oldStart[i] + removedLines) became new lines [line, line + addedLines); shift[i] is the net change before it.
  const shift: number[] = []
  const oldStart: number[] = []
  let net = 0
  for (const change of later) {
    shift.push(net)
    oldStart.push(change.line - net)
    net += change.addedLines - change.removedLines
  }
  const map = (at: number, side: 'start' | 'end'): number => {
    // The changes wholly before the boundary just above line `at` are a prefix: binary search for its end.
    let low = 0
    let high = later.length - 1
    while (low <= high) {
      const mid = (low + high) >> 1
      const end = oldStart[mid]! + later[mid]!.removedLines
      // An insertion right at the boundary moves a region's start, not its end.
      if (end <= at && (side === 'start' || oldStart[mid]! < at)) low = mid + 1
      else high = mid - 1
    }
    const next = later[low]
    if (next !== undefined && oldStart[low]! < at && at < oldStart[low]! + next.removedLines) {
      return side === 'start' ? next.line : next.line + next.addedLines
    }
    return low === 0 ? at : at + shift[low - 1]! + later[low - 1]!.addedLines - later[low - 1]!.removedLines
  }
  return regions.map((region) => {
    const start = map(region.line, 'start')
    const end = region.addedLines === 0 ? start : map(region.line + region.addedLines, 'end')
    return { line: start, removedLines: region.removedLines, addedLines: end - start }
  })
}

/** The bytes to publish for `applyEdits` on a file's raw bytes; the BOM is kept. */
export function planEdits(current: Uint8Array, edits: readonly FsEditRequest[], path?: string): AppliedEdits & { bytes: Uint8Array; before: string } {
  const decoded = decodeText(current, path)
  const applied = applyEdits(decoded.text, edits, path)
  return { ...applied, bytes: encodeText(applied.text, decoded.bom), before: decoded.text }
}
