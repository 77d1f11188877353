import { FsError, type FsObservation, type FsSeenLines, type FsTarget } from '@deepseek-ai/dsh-fs'
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
  // Lines and characters counted in another encoding are other bytes: nothing of them carries over.
  const held = previous?.kind === 'present' && sameCounting(previous.seen, next.seen) ? previous : undefined
  let before
  if (held?.version === next.version) before = held.seen
  else if (held !== undefined && next.from !== undefined && held.version === next.from.version) before = seenCarried(held.seen, next.from.changes)
  const seen = before === undefined && next.seen === undefined ? undefined : seenUnion(before, next.seen)
  if (seen === undefined) return { kind: 'present', version: next.version }
  const encoding = (next.seen ?? before)?.encoding
  return { kind: 'present', version: next.version, seen: encoding === undefined ? seen : { ...seen, encoding } }
}

function sameCounting(a: FsSeenLines | undefined, b: FsSeenLines | undefined): boolean {
  return a === undefined || b === undefined || a.encoding === b.encoding
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
