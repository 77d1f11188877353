import { createHash, randomBytes } from 'node:crypto'

/**
 * The names fs-local puts beside a target: `.dsh-staging.<kind>.<16 hex>.<8 hex check>`, where kind
 * `f` is a staged replacement (named after its target: it is also the target's publication lock)
 * and `d` the private directory a new file is staged in. The check digits hash the rest, so a name is ours only if we could have made
 * it: a user's `.dsh-staging.f.cafe0123.1.42.7.backup` is listed, kept and writable like any file,
 * and a name that checks is refused as a target (`isStagingName`). Listings hide exactly these.
 */
export const STAGING_PREFIX = '.dsh-staging.'

export type StagingKind = 'f' | 'd'

const PATTERN = /^\.dsh-staging\.([fd])\.([0-9a-f]{16})\.([0-9a-f]{8})$/

function checkOf(kind: StagingKind, body: string): string {
  return createHash('sha256').update(`dsh-staging ${kind}.${body}`).digest('hex').slice(0, 8)
}

function nameOf(kind: StagingKind, body: string): string {
  return `${STAGING_PREFIX}${kind}.${body}.${checkOf(kind, body)}`
}

/** A fresh name of `kind`: 64 random bits (a staging directory; tests make residue with it). */
export function newStagingName(kind: StagingKind): string {
  return nameOf(kind, randomBytes(8).toString('hex'))
}

/** The name a replacement of the entry `name` of a directory is staged under: one per target. */
export function stagedNameOf(name: string): string {
  return nameOf('f', createHash('sha256').update(name).digest('hex').slice(0, 16))
}

/** What kind of our entries `name` is, or `undefined` for every other name. */
export function stagingKindOf(name: string): StagingKind | undefined {
  if (!name.startsWith(STAGING_PREFIX)) return undefined
  const match = PATTERN.exec(name)
  if (match === null) return undefined
  const kind = match[1] as StagingKind
  return checkOf(kind, match[2]!) === match[3] ? kind : undefined
}

export function isStagingName(name: string): boolean {
  return stagingKindOf(name) !== undefined
}
