import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { Shelf } from './shelf'
import type { Ledger, LedgerLimits, Owner, StoredOutcome } from './types'

interface OwnerState {
  observations: Shelf<FsObservation>
  outcomes: Shelf<StoredOutcome>
}

/** What a shelf of `OwnerState` holds. */
type Entry<K extends keyof OwnerState> = OwnerState[K] extends Shelf<infer T> ? T : never

/**
 * The default store: this process's memory, answering synchronously. A session object's state is
 * held weakly, so a finished session's memory goes with it; string owners (token hashes, `stdio`)
 * are kept on a shelf bounded by `maxOwners`. Nothing survives the process.
 */
export class MemoryLedger implements Ledger {
  readonly label = 'memory'
  #sessions = new WeakMap<object, OwnerState>()
  #named: OwnerState
  #now: () => number

  constructor(private readonly limits: LedgerLimits) {
    this.#now = limits.now ?? Date.now
    this.#named = this.#fresh(limits.maxOwners)
  }

  #fresh(maxOwners: number): OwnerState {
    return { observations: new Shelf(this.limits.maxEntriesPerOwner, maxOwners), outcomes: new Shelf(this.limits.maxEntriesPerOwner, maxOwners) }
  }

  /** The shelf an owner's entries are on, and the key it is filed under there. */
  #place(owner: Owner, create: boolean): [OwnerState, string] | undefined {
    if (typeof owner === 'string') return [this.#named, owner]
    let state = this.#sessions.get(owner)
    if (state === undefined) {
      if (!create) return undefined
      this.#sessions.set(owner, (state = this.#fresh(1)))
    }
    return [state, '']
  }

  get(owner: Owner, targetKey: string): FsObservation | undefined {
    return this.#read(owner, 'observations', targetKey)
  }

  put(owner: Owner, targetKey: string, observation: FsObservation): void {
    this.#write(owner, 'observations', targetKey, observation, this.limits.entryTtlMs)
  }

  getOutcome(owner: Owner, id: string): StoredOutcome | undefined {
    return this.#read(owner, 'outcomes', id)
  }

  putOutcome(owner: Owner, id: string, outcome: StoredOutcome): void {
    this.#write(owner, 'outcomes', id, outcome, this.limits.retryTtlMs)
  }

  /** An owner's live entry on one of its two shelves; reading never creates the owner. */
  #read<K extends keyof OwnerState>(owner: Owner, shelf: K, id: string): Entry<K> | undefined {
    const place = this.#place(owner, false)
    return (place?.[0][shelf] as Shelf<Entry<K>> | undefined)?.get(place![1], id, this.#now())
  }

  #write<K extends keyof OwnerState>(owner: Owner, shelf: K, id: string, value: Entry<K>, ttlMs: number): void {
    const [state, key] = this.#place(owner, true)!
    ;(state[shelf] as Shelf<Entry<K>>).set(key, id, value, this.#now() + ttlMs)
  }

  async close(): Promise<void> {
    this.#sessions = new WeakMap()
    this.#named.observations.clear()
    this.#named.outcomes.clear()
  }
}
