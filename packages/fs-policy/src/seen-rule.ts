import { FsError, type FsObservation, type FsTarget } from '@deepseek-ai/dsh-fs'
import { firstUnseen, seenAll, seenCarried, seenUnion } from '@deepseek-ai/dsh-fs/kit'

type Present = Extract<FsObservation, { kind: 'present' }>

/**
 * What an owner knows after `next`, given what it knew before (`previous`). A new version starts
 * from what `next` itself says was seen, plus, when the owner made it from the version it held
 * (`next.from`), what it had seen of that one, moved by the changes. The same version again adds
 * what was seen now to what was seen before. A plain value: nothing of `next` is kept by reference.
 */
export function observedAfter(previous: FsObservation | undefined, next: FsObservation): FsObservation {
  if (next.kind === 'absent') return { kind: 'absent' }
  let before
  if (previous?.kind === 'present' && previous.version === next.version) before = previous.seen
  else if (previous?.kind === 'present' && next.from !== undefined && previous.version === next.from.version) before = seenCarried(previous.seen, next.from.changes)
  const seen = before === undefined && next.seen === undefined ? undefined : seenUnion(before, next.seen)
  return seen === undefined ? { kind: 'present', version: next.version } : { kind: 'present', version: next.version, seen }
}

/**
 * The seen rule: a whole-file replacement of `observation`'s version needs every line of it seen.
 * Otherwise `FS_NOT_SEEN`, carrying what was seen so that the tool can name the first line not seen.
 */
export function checkWholeReplacement(observation: Present, target: FsTarget): void {
  if (seenAll(observation.seen)) return
  const path = target.displayPath
  const seen = observation.seen ?? { ranges: [] }
  const next = firstUnseen(seen) ?? { line: 1 }
  throw new FsError('FS_NOT_SEEN', `${path} has lines this session was not shown, from line ${next.line} on; `
    + 'a whole-file replacement would change them', { path, seen })
}
