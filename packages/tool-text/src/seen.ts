import type { FsDerivation, FsEditOutcome, FsLineChange, FsObservation, FsSeenLines, FsSeenPart, FsVersion } from '@deepseek-ai/dsh-fs'
import { changedRegion, seenUnion } from '@deepseek-ai/dsh-fs/kit'
import { countLines } from './lines'
import type { WindowLine } from './window'

/**
 * What a window shows of a version, as an observation's `seen`: lines shown whole, and the
 * characters shown of lines cut at the display limit or shown from a column. `total` is the
 * version's line count when the call learned it.
 */
export function seenOfWindow(lines: readonly WindowLine[], total?: number): FsSeenLines {
  const ranges: Array<[number, number]> = []
  const parts: FsSeenPart[] = []
  for (const line of lines) {
    const from = line.column ?? 1
    if (from === 1 && !line.cut) ranges.push([line.number, line.number])
    else parts.push({ line: line.number, from, to: from + [...line.text].length - 1, end: !line.cut })
  }
  // The union normalises: consecutive lines join into one range, a part that is whole becomes a line.
  return seenUnion(undefined, total === undefined ? { ranges, parts } : { ranges, parts, total })
}

/**
 * How an edit made its version from the one it was guarded at, for the observation's `from`: the
 * provider's changed regions when it reported all of them, else the one region between the lines
 * both texts share at both ends. `undefined` without a guard (nothing known was edited) or
 * without either (what was seen then does not carry over; the policy forgets it).
 */
export function derivation(guard: { version: FsVersion } | undefined, outcome: FsEditOutcome): FsDerivation | undefined {
  if (guard === undefined) return undefined
  const changes = reportedChanges(outcome)
  if (changes !== undefined) return { version: guard.version, changes }
  if (outcome.before === null) return undefined
  const region = changedRegion(outcome.before, outcome.after)
  return { version: guard.version, changes: region === undefined ? [] : [region] }
}

/** The provider's regions, when they are all of them (`changes` lists at most a bound; the totals count every region). */
function reportedChanges(outcome: FsEditOutcome): FsLineChange[] | undefined {
  if (outcome.changes === undefined || outcome.lineTotals === undefined) return undefined
  let added = 0
  let removed = 0
  for (const change of outcome.changes) {
    added += change.addedLines
    removed += change.removedLines
  }
  return added === outcome.lineTotals.added && removed === outcome.lineTotals.removed ? outcome.changes : undefined
}

/**
 * What the session knows of the version its edit made: what it had seen of the version the guard
 * named carries over (the policy moves it by `from.changes`), the lines the reply shows of it
 * (`shown`, its snippet) are seen, and the new line count is known.
 */
export function editedObservation(guard: { version: FsVersion } | undefined, outcome: FsEditOutcome, shown: readonly WindowLine[] = []): FsObservation {
  const from = derivation(guard, outcome)
  const seen = seenOfWindow(shown, countLines(outcome.after))
  return from === undefined ? { kind: 'present', version: outcome.version, seen } : { kind: 'present', version: outcome.version, seen, from }
}
