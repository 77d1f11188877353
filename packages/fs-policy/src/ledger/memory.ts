import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { Shelf } from './shelf'
import type { Ledger, LedgerLimits, Owner, StoredOutcome } from './types'

interface OwnerState {
  observations: Shelf<FsObservation>
  outcomes: Shelf<StoredOutcome>
}

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
    const place = this.#place(owner, false)
    return place?.[0].observations.get(place[1], targetKey, this.#now())
  }

  put(owner: Owner, targetKey: string, observation: FsObservation): void {
    const [state, key] = this.#place(owner, true)!
    state.observations.set(key, targetKey, observation, this.#now() + this.limits.entryTtlMs)
  }

  getOutcome(owner: Owner, id: string): StoredOutcome | undefined {
    const place = this.#place(owner, false)
    return place?.[0].outcomes.get(place[1], id, this.#now())
  }

  putOutcome(owner: Owner, id: string, outcome: StoredOutcome): void {
    const [state, key] = this.#place(owner, true)!
    state.outcomes.set(key, id, outcome, this.#now() + this.limits.retryTtlMs)
  }

  async close(): Promise<void> {
    this.#sessions = new WeakMap()
    this.#named.observations.clear()
    this.#named.outcomes.clear()
  }
}
