declare const targetKeyBrand: unique symbol
declare const versionBrand: unique symbol

/** The identity of a file: two spellings of one file give one key. Minted only by providers. */
export type FsTargetKey = string & { readonly [targetKeyBrand]: true }

/** An opaque token that changes whenever a file's content or metadata changes. Minted only by providers. */
export type FsVersion = string & { readonly [versionBrand]: true }

export interface FsTarget {
  readonly targetKey: FsTargetKey
  /** What humans and the model see; never used for identity. */
  readonly displayPath: string
}

export type FsEntryType = 'file' | 'directory' | 'other'

/** What an `other` entry is, when the provider knows: tools name it to the model as such. */
export type FsSpecialKind = 'fifo' | 'socket' | 'device' | 'broken-symlink'

export interface FsInfo {
  version: FsVersion
  type: FsEntryType
  size?: number
  /** Only for `type: 'other'`; optional, so a provider that cannot tell leaves it out. */
  special?: FsSpecialKind
}

/** What an actor learned about a target: it exists at a version, or it does not exist. */
export type FsObservation =
  | { kind: 'present'; version: FsVersion }
  | { kind: 'absent' }

/**
 * The precondition of a guarded write. Omitting it means "create or overwrite unconditionally".
 * - `createIfAbsent`: publish only if nothing exists at the target at the publication point.
 * - `replaceIfVersion`: publish only if the target still exists at exactly this version; never recreates.
 */
export type FsWriteIntent =
  | { kind: 'createIfAbsent' }
  | { kind: 'replaceIfVersion'; version: FsVersion }

export interface FsEditRequest {
  oldString: string
  newString: string
  replaceAll: boolean
}

export interface FsWriteOutcome {
  operation: 'create' | 'update'
  version: FsVersion
  /** Text before the write (null for a create, or when above the provider's diff bound). */
  before: string | null
  after: string
}

export interface FsEditOutcome {
  version: FsVersion
  before: string | null
  after: string
  replacements: number
}

export interface FsDirEntry {
  name: string
  type: FsEntryType
  target: FsTarget
  version?: FsVersion
  size?: number
}

export interface FsResolveOptions {
  cwd?: string
  signal?: AbortSignal
}
