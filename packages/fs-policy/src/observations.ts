import { type FsEditExpectation, FsError, type FsObservation, type FsTarget, type FsWriteIntent } from '@deepseek-ai/dsh-fs'

// The decisions, as pure functions of what the ledger holds for (owner, target): no state, no I/O.


/** Write: nothing known (unseen or absent) may only create; a version seen may be replaced at it. */
export function writeIntent(observation: FsObservation | undefined): FsWriteIntent {
  return observation?.kind === 'present' ? { kind: 'replaceIfVersion', version: observation.version } : { kind: 'createIfAbsent' }
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
