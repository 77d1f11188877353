import { type FsEditExpectation, FsError, type FsObservation, type FsTarget, type FsWriteIntent } from '@deepseek-ai/dsh-fs'
import { checkWholeReplacement, observedAfter } from './seen-rule'

// The decisions, as pure functions of what the ledger holds for (owner, target): no state, no I/O.

/**
 * The entry to store once `observation` is recorded over `previous` (what the owner held): a new
 * plain value, so the emitter's object cannot change what was recorded. A malformed `seen` from
 * some emitter keeps the version and drops what it says was seen.
 */
export function recorded(previous: FsObservation | undefined, observation: FsObservation): FsObservation {
  try {
    return observedAfter(previous, observation)
  } catch {
    return observation.kind === 'present' ? { kind: 'present', version: observation.version } : { kind: 'absent' }
  }
}

/**
 * Write: nothing known (unseen or absent) may only create; a version seen may be replaced at it.
 * With `seenBeforeReplace`, only when every line of that version was seen (`FS_NOT_SEEN` otherwise).
 */
export function writeIntent(observation: FsObservation | undefined, rule?: { target: FsTarget; seenBeforeReplace: boolean }): FsWriteIntent {
  if (observation?.kind !== 'present') return { kind: 'createIfAbsent' }
  if (rule?.seenBeforeReplace === true) checkWholeReplacement(observation, rule.target)
  return { kind: 'replaceIfVersion', version: observation.version }
}

/**
 * Edit: an edit quotes text, so it needs a version the owner has seen. Unseen fails
 * `FS_NOT_OBSERVED`; a confirmed absence fails `FS_NOT_FOUND` without asking the provider.
 */
export function editExpectation(observation: FsObservation | undefined, target: FsTarget): NonNullable<FsEditExpectation> {
  const path = target.displayPath
  if (observation === undefined) {
    throw new FsError('FS_NOT_OBSERVED', `${path} has not been read in this session`, { path })
  }
  if (observation.kind === 'absent') {
    throw new FsError('FS_NOT_FOUND', `${path} does not exist (the last read in this session found it absent)`, { path })
  }
  return { version: observation.version }
}
