import { type FsEditExpectation, FsError, type FsObservation, type FsTarget, type FsTargetKey, type FsWriteIntent } from '@deepseek-ai/dsh-fs'
import { checkWholeReplacement, observedAfter } from './seen-rule'

/**
 * The owner of observed state: the session of the agent that acted. The fs contract keeps the
 * actor opaque; this is the only place it is narrowed to `{ agent?: { session? } }`. An actor
 * without a session object has no memory, so every target is unseen to it.
 */
export function ownerOf(actor: object | undefined): object | undefined {
  const session = (actor as { agent?: { session?: unknown } } | undefined)?.agent?.session
  return typeof session === 'object' && session !== null ? session : undefined
}

/**
 * What each owner last observed about each target: no entry = unseen, `absent`, or
 * `present(version)` with the lines of it seen. Keyed weakly by owner so that a finished session's
 * memory goes with it.
 */
export class ObservedState {
  #owners = new WeakMap<object, Map<FsTargetKey, FsObservation>>()

  get(owner: object | undefined, target: FsTarget): FsObservation | undefined {
    return owner === undefined ? undefined : this.#owners.get(owner)?.get(target.targetKey)
  }

  record(owner: object | undefined, target: FsTarget, observation: FsObservation): void {
    if (owner === undefined) return
    let targets = this.#owners.get(owner)
    if (targets === undefined) this.#owners.set(owner, (targets = new Map()))
    // A new value: the emitter's object must not be able to change what was recorded.
    let next: FsObservation
    try {
      next = observedAfter(targets.get(target.targetKey), observation)
    } catch {
      // A malformed `seen` from some emitter: the version is kept, what it says was seen is not.
      next = observation.kind === 'present' ? { kind: 'present', version: observation.version } : { kind: 'absent' }
    }
    targets.set(target.targetKey, next)
  }

  clear(): void {
    this.#owners = new WeakMap()
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
