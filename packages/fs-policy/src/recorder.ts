import type { FsObservation, FsTarget } from '@deepseek-ai/dsh-fs'
import type { Ledger, Owner } from './ledger/types'

/**
 * Between the synchronous `fs/observed` emit and a store that may answer later. `record` starts the
 * write at once and remembers it under its owner; `settle(owner)` waits for that owner's writes and
 * rethrows the first that failed. The intents settle before they read (an owner sees its own last
 * observation), and the `tools/execute` hook settles before a result is returned, so an observation
 * made by a call is in the store before its response leaves the process: a replica that serves the
 * owner's next call finds it, even if this one is gone by then.
 * A memory store answers synchronously and nothing is ever pending.
 */
export class Recorder {
  #pending = new Map<Owner, { writes: Set<Promise<void>>; failure: unknown }>()

  constructor(readonly ledger: Ledger) {}

  record(owner: Owner | undefined, target: FsTarget, observation: FsObservation): void {
    if (owner === undefined) return
    // A plain JSON copy: the emitter's object cannot change what was recorded, and every field travels.
    const write = this.ledger.put(owner, target.targetKey, JSON.parse(JSON.stringify(observation)) as FsObservation)
    if (write === undefined) return
    let slot = this.#pending.get(owner)
    if (slot === undefined) this.#pending.set(owner, (slot = { writes: new Set(), failure: undefined }))
    const tracked: Promise<void> = write.then(
      () => { slot.writes.delete(tracked) },
      (error: unknown) => {
        slot.writes.delete(tracked)
        slot.failure ??= error
      },
    )
    slot.writes.add(tracked)
  }

  /** Resolves once every write of `owner` made so far is stored; rejects with the first failure among them. */
  async settle(owner: Owner | undefined): Promise<void> {
    if (owner === undefined) return
    const slot = this.#pending.get(owner)
    if (slot === undefined) return
    while (slot.writes.size > 0) await Promise.all(slot.writes)
    if (this.#pending.get(owner) === slot) this.#pending.delete(owner)
    if (slot.failure !== undefined) throw slot.failure
  }

  async get(owner: Owner | undefined, target: FsTarget): Promise<FsObservation | undefined> {
    if (owner === undefined) return undefined
    await this.settle(owner)
    return this.ledger.get(owner, target.targetKey)
  }
}
