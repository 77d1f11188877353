import type { FsObservation, FsTarget } from '@deepseek-ai/dsh-fs'
import type { Ledger, Owner } from './ledger/types'
import { recorded } from './observations'

interface Pending {
  /** The owner's last write: each one starts after the one before, so they compose in order. */
  tail: Promise<void>
  count: number
  failure: unknown
}

/**
 * Between the synchronous `fs/observed` emit and a store that may answer later. An observation is
 * combined with what the owner held (`recorded`: the same version adds the lines seen now to those
 * seen before), so recording reads the entry and writes it back (a Redis store does both in one
 * script, which checks that it holds the entry the process expects). `record` starts that at once and
 * remembers it under its owner; `settle(owner)` waits for the owner's writes and rethrows the first
 * that failed. The intents settle before they read (an owner sees its own last observation), and
 * the `tools/execute` hook settles before a result is returned, so an observation made by a call
 * is in the store before its response leaves the process: a replica that serves the owner's next
 * call finds it, even if this one is gone by then.
 * A memory store answers synchronously and nothing is ever pending; a `file:` store reads
 * synchronously and only its durable write is pending. Two replicas recording the same owner and
 * target at once: Redis refuses the second script's expectation and it combines again with what the
 * first stored, so neither loses the other's seen lines.
 */
export class Recorder {
  #pending = new Map<Owner, Pending>()

  constructor(readonly ledger: Ledger) {}

  record(owner: Owner | undefined, target: FsTarget, observation: FsObservation): void {
    if (owner === undefined) return
    const key = target.targetKey
    const idle = !this.#pending.has(owner)
    if (this.ledger.record !== undefined) {
      // One step in the store (Redis: one round trip), sent at once unless an earlier write of the
      // owner is still on its way: then after it, so that the owner's writes land in order.
      if (idle) {
        const write = this.ledger.record(owner, key, observation)
        this.#track(owner, () => write)
      } else {
        const copy = copyOf(observation)
        this.#track(owner, () => this.ledger.record!(owner, key, copy))
      }
      return
    }
    let previous: ReturnType<Ledger['get']> | undefined
    if (idle) {
      previous = this.ledger.get(owner, key)
      if (!(previous instanceof Promise)) {
        const write = this.ledger.put(owner, key, recorded(previous, observation))
        if (write !== undefined) this.#track(owner, () => write)
        return
      }
      // Awaited below; a failure is reported there, by `settle`, not as an unhandled rejection.
      previous.catch(() => {})
    }
    // The store answers later: read (unless already asked: nothing of this owner was pending) and
    // write back, after the owner's earlier writes.
    const copy = copyOf(observation)
    this.#track(owner, async () => {
      const before = await (previous ?? this.ledger.get(owner, key))
      await this.ledger.put(owner, key, recorded(before, copy))
    })
  }

  #track(owner: Owner, write: () => Promise<void>): void {
    let slot = this.#pending.get(owner)
    if (slot === undefined) this.#pending.set(owner, (slot = { tail: Promise.resolve(), count: 0, failure: undefined }))
    const pending = slot
    pending.count++
    pending.tail = pending.tail.then(write).then(
      () => { pending.count-- },
      (error: unknown) => {
        pending.count--
        pending.failure ??= error
      },
    )
  }

  /** Resolves once every write of `owner` made so far is stored; rejects with the first failure among them. */
  async settle(owner: Owner | undefined): Promise<void> {
    if (owner === undefined) return
    const slot = this.#pending.get(owner)
    if (slot === undefined) return
    while (slot.count > 0) await slot.tail
    if (this.#pending.get(owner) === slot) this.#pending.delete(owner)
    if (slot.failure !== undefined) throw slot.failure
  }

  /**
   * What the owner holds for `target`, without a wait when nothing of the owner is pending: a memory
   * or file store answers synchronously here, as the policy did before it had a ledger.
   */
  lookup(owner: Owner | undefined, target: FsTarget): FsObservation | undefined | Promise<FsObservation | undefined> {
    if (owner === undefined) return undefined
    return this.#pending.has(owner) ? this.get(owner, target) : this.ledger.get(owner, target.targetKey)
  }

  async get(owner: Owner | undefined, target: FsTarget): Promise<FsObservation | undefined> {
    if (owner === undefined) return undefined
    await this.settle(owner)
    return this.ledger.get(owner, target.targetKey)
  }
}

/** A copy of an observation, for a write that starts later than the emit (the emitter may reuse its object). */
function copyOf(observation: FsObservation): FsObservation {
  return JSON.parse(JSON.stringify(observation)) as FsObservation
}
