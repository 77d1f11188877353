import type { FsObservation } from '@deepseek-ai/dsh-fs'

/**
 * Who observed: a session object (an owner for as long as the object lives) or a stable string key
 * (a hash of a bearer token, `stdio`), which a persistent ledger keeps across restarts and replicas.
 */
export type Owner = object | string

/** What a retried mutating call gets back: the first call's result, and what it left its owner having seen. */
export interface StoredOutcome {
  result: { content: { type: 'text'; text: string }[]; isError: boolean; error?: { code?: string; message: string } }
  /** Each target the call guarded, with the owner's observation of it once the call ended (`null`: none). */
  targets: [targetKey: string, observation: FsObservation | null][]
}

/** How long entries live and how many are kept; the same for every store. */
export interface LedgerLimits {
  entryTtlMs: number
  maxEntriesPerOwner: number
  maxOwners: number
  retryTtlMs: number
  /** The clock expiry is measured on; tests pass their own. */
  now?: () => number
}

/**
 * The store of observations, keyed by (owner, target key). The value is the observation as a plain
 * JSON value, so fields the policy does not know travel through unchanged. A memory store answers
 * synchronously; the others return promises, which reject with a `LedgerError` when the store fails.
 */
export interface Ledger {
  /** `memory`, `file:<path>` or the Redis URL without its password: named in every failure. */
  readonly label: string
  get(owner: Owner, targetKey: string): FsObservation | undefined | Promise<FsObservation | undefined>
  put(owner: Owner, targetKey: string, observation: FsObservation): void | Promise<void>
  /**
   * Records an observation over what the owner holds (`recorded`), in one step of the store. A
   * store without it is read and then written by the recorder. Resolves `true` when the step sent
   * at the call applied it: a lookup sent after that call (on this ledger) then already sees it;
   * `false` when it took more steps.
   */
  record?(owner: Owner, targetKey: string, observation: FsObservation): Promise<boolean>
  getOutcome(owner: Owner, id: string): StoredOutcome | undefined | Promise<StoredOutcome | undefined>
  putOutcome(owner: Owner, id: string, outcome: StoredOutcome): void | Promise<void>
  close(): Promise<void>
}

/** The store could not answer: unreachable, timed out, or its file could not be written. */
export class LedgerError extends Error {
  override readonly name = 'LedgerError'
}
