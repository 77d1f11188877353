import { Buffer } from 'node:buffer'
import { spliceLiteral } from './edit'
import { formatSize } from './sizes'
import { FsEditStepError, FsError, fsError } from './errors'
import { FS_MAX_LINE_CHANGES } from './lines'
import { DEFAULT_MAX_TEXT_BYTES, FS_MAX_EDIT_WORK, FS_MAX_EDITS, FS_MAX_REPLACEMENTS } from './limits'
import type { FsEditRequest, FsEditStep, FsLineChange } from './types'

export interface EditsLimits {
  /** Largest text any step may produce, in UTF-8 bytes; checked before the step builds it. Default `DEFAULT_MAX_TEXT_BYTES`. */
  maxBytes?: number
  /** The UTF-8 size of the text, when the caller knows it (else it is measured once). */
  textBytes?: number
  /** Default `FS_MAX_EDITS`. */
  maxEdits?: number
  /** Default `FS_MAX_EDIT_WORK`. */
  maxWork?: number
  /** Memory the caller holds (`SpliceLimits.heldBytes`): a step that needs more throws `MemoryShortfall` before it builds. */
  heldBytes?: number
  /** The most replacements of all the steps together. Default `FS_MAX_REPLACEMENTS`. */
  maxReplacements?: number
}

export interface AppliedEdits {
  text: string
  /** Replacements made by each step, in order. */
  replacements: number[]
  /** Where each step landed, in lines of the final text. */
  steps: FsEditStep[]
  /** The UTF-8 size of `text`. */
  bytes: number
  /**
   * What applying cost: `scanned`, the text matched against (summed over the steps); `moved`, the
   * earlier steps' regions moved by later ones (at most `FS_MAX_LINE_CHANGES` per step). Both grow
   * linearly with the number of edits.
   */
  work: { scanned: number; moved: number }
}

/**
 * Applies literal edits one after another to one text, each to the result of the one before (so a
 * later step may match text an earlier step wrote). The first step that fails stops everything.
 *
 * Bounded before anything is built: more than `maxEdits` edits fail `FS_TOO_LARGE` at once; a step
 * whose result would pass `maxBytes` fails before it is built (its size is computed from its
 * matches); a step that would take the text matched against past `maxWork` fails before it runs.
 * Each step costs one pass over the text, whatever the number of steps before it: the line regions
 * of earlier steps are moved only while they exist (at most `FS_MAX_LINE_CHANGES` in all).
 */
export function applyEdits(text: string, edits: readonly FsEditRequest[], path?: string, limits: EditsLimits = {}): AppliedEdits {
  const { maxBytes = DEFAULT_MAX_TEXT_BYTES, maxEdits = FS_MAX_EDITS, maxWork = FS_MAX_EDIT_WORK, maxReplacements = FS_MAX_REPLACEMENTS } = limits
  checkEditCount(edits.length, maxEdits, path)
  const replacements: number[] = []
  const steps: FsEditStep[] = []
  // The steps that still have regions to move: the others cost nothing per later step.
  const tracking: FsEditStep[] = []
  let tracked = 0
  let current = text
  let bytes = limits.textBytes ?? Buffer.byteLength(text)
  const work = { scanned: 0, moved: 0 }
  let replaced = 0
  for (const [index, edit] of edits.entries()) {
    try {
      if (work.scanned + current.length > maxWork) throw tooMuchWork(path, index, edits.length, bytes, maxWork)
      work.scanned += current.length
      const spliced = spliceLiteral(current, edit, path, {
        maxBytes, textBytes: bytes, maxReplacements: maxReplacements - replaced, ...(limits.heldBytes === undefined ? {} : { heldBytes: limits.heldBytes }),
      })
      replaced += spliced.replacements
      current = spliced.text
      bytes = spliced.bytes!
      replacements.push(spliced.replacements)
      moveRegions(tracking, spliced.lines.changes, work)
      const kept = spliced.lines.changes.slice(0, Math.max(0, FS_MAX_LINE_CHANGES - tracked))
      tracked += kept.length
      const step: FsEditStep = { replacements: spliced.replacements, changes: kept }
      steps.push(step)
      if (kept.length > 0) tracking.push(step)
    } catch (error) {
      throw stepError(error, index, path)
    }
  }
  return { text: current, replacements, steps, bytes, work }
}

/** No edits fail `FS_EDIT_NOT_FOUND`; more than `maxEdits` fail `FS_TOO_LARGE`, before any is tried. */
function checkEditCount(count: number, maxEdits: number, path: string | undefined): void {
  if (count === 0) throw new FsError('FS_EDIT_NOT_FOUND', 'no edits were given', { path })
  if (count > maxEdits) {
    throw fsError('FS_TOO_LARGE', {
      path,
      reason: `cannot take ${count} edits in one call: the limit is ${maxEdits}; nothing was changed. `
        + `Send the edits in calls of at most ${maxEdits}, in order (each call applies to what the one before wrote)`,
    })
  }
}

/** The regions of earlier steps move with the lines a later step added or removed above them. */
function moveRegions(tracking: readonly FsEditStep[], changes: readonly FsLineChange[], work: AppliedEdits['work']): void {
  if (changes.length === 0) return
  for (const step of tracking) {
    step.changes = mapChanges(step.changes, changes)
    work.moved += step.changes.length
  }
}

/** A failed step's `FsError`, renamed after its step (other errors pass unchanged). */
function stepError(error: unknown, index: number, path: string | undefined): unknown {
  if (!FsError.is(error)) return error
  const earlier = index === 0 ? '' : ` (after edits[0..${index - 1}] were applied to the text)`
  const occurrences = error.occurrences === undefined ? {} : { occurrences: error.occurrences }
  return new FsEditStepError(error.code, `edits[${index}]: ${error.message}${earlier}`, index, { cause: error, path, ...occurrences })
}

function tooMuchWork(path: string | undefined, index: number, count: number, bytes: number, maxWork: number): FsError {
  return fsError('FS_TOO_LARGE', {
    path,
    reason: `is too large for ${count} edits in one call (${formatSize(bytes)} by then; each edit searches the whole text, `
      + `and one call searches at most ${formatSize(maxWork)} in all); nothing was changed. `
      + `Send edits[${index}] and the ones after it in another call, or use fewer edits per call`,
  })
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
