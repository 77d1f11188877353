import type { FsObservation, FsTarget } from '@deepseek-ai/dsh-fs'
import type { Ledger, Owner } from './ledger/types'
import { recorded } from './observations'

interface Pending {
  /** The owner's last write: each one starts after the one before, so they compose in order. */
  tail: Promise<void>
  /** Settles with the last write a reply must wait for (see `settleForReply`). */
  required: Promise<void>
  /** Every write was sent at its record and applied by that one command: a lookup sent later sees them all. */
  inOrder: boolean
  count: number
  failure: unknown
}

/**
 * Whether a reply may leave before this observation is stored. It may when the observation is the
 * owner's own change to a version it held (`from`): were it lost, the owner still holds that older
 * version, so its next change is refused as stale (and it reads again), never as "not read", and
 * never applied. A read's or a creation's observation is the owner's only one: the reply waits.
 */
function deferrable(observation: FsObservation): boolean {
  return observation.kind === 'present' && observation.from !== undefined
}

/** The owners with writes pending: session objects held weakly, so a session that is gone takes its slot with it. */
class Slots {
  #named = new Map<string, Pending>()
  #sessions = new WeakMap<object, Pending>()

  get(owner: Owner): Pending | undefined {
    return typeof owner === 'string' ? this.#named.get(owner) : this.#sessions.get(owner)
  }

  set(owner: Owner, slot: Pending): void {
    if (typeof owner === 'string') this.#named.set(owner, slot)
    else this.#sessions.set(owner, slot)
  }

  /** Forgets `slot` if it is still the owner's. */
  drop(owner: Owner, slot: Pending): void {
    if (this.get(owner) !== slot) return
    if (typeof owner === 'string') this.#named.delete(owner)
    else this.#sessions.delete(owner)
  }
}

/**
 * Between the synchronous `fs/observed` emit and a store that may answer later. An observation is
 * combined with what the owner held (`recorded`: the same version adds the lines seen now to those
 * seen before), so recording reads the entry and writes it back (a Redis store does both in one
 * script, which checks that it holds the entry the process expects). `record` starts that at once and
 * remembers it under its owner; `settle(owner)` waits for the owner's writes and rethrows the first
 * that failed. The intents settle before they read (an owner sees its own last observation), and
 * the `tools/execute` hook waits with `settleForReply` before a result is returned, so a read's or
 * a creation's observation is in the store before its response leaves the process: a replica that
 * serves the owner's next call finds it, even if this one is gone by then. An owner's own change
 * to a version it held is sent by then and may land after the reply (see `deferrable`).
 * A memory store answers synchronously and nothing is ever pending; a `file:` store reads
 * synchronously and only its durable write is pending. Two replicas recording the same owner and
 * target at once: Redis refuses the second script's expectation and it combines again with what the
 * first stored, so neither loses the other's seen lines.
 */
export class Recorder {
  #pending = new Slots()

  constructor(readonly ledger: Ledger) {}

  record(owner: Owner | undefined, target: FsTarget, observation: FsObservation): void {
    if (owner === undefined) return
    const key = target.targetKey
    const idle = this.#pending.get(owner) === undefined
    const required = !deferrable(observation)
    if (this.ledger.record !== undefined) {
      // One step in the store (Redis: one round trip), sent at once unless an earlier write of the
      // owner is still on its way: then after it, so that the owner's writes land in order.
      if (idle) {
        const write = this.ledger.record(owner, key, observation)
        const slot = this.#track(owner, () => write.then((first) => { slot.inOrder &&= first }), required)
      } else {
        const copy = copyOf(observation)
        const slot = this.#track(owner, () => this.ledger.record!(owner, key, copy).then(() => undefined), required)
        slot.inOrder = false
      }
      return
    }
    let previous: ReturnType<Ledger['get']> | undefined
    if (idle) {
      previous = this.ledger.get(owner, key)
      if (!(previous instanceof Promise)) {
        const write = this.ledger.put(owner, key, recorded(previous, observation))
        if (write !== undefined) this.#track(owner, () => write, required)
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
    }, required)
  }

  #track(owner: Owner, write: () => Promise<void>, required: boolean): Pending {
    let slot = this.#pending.get(owner)
    if (slot === undefined) this.#pending.set(owner, (slot = { tail: Promise.resolve(), required: Promise.resolve(), inOrder: true, count: 0, failure: undefined }))
    const pending = slot
    pending.count++
    pending.tail = pending.tail.then(write).then(
      () => {
        // Done and nothing to report: the slot goes, so an owner whose reply did not wait leaves nothing behind.
        if (--pending.count === 0 && pending.failure === undefined) this.#pending.drop(owner, pending)
      },
      (error: unknown) => {
        pending.count--
        pending.failure ??= error
      },
    )
    if (required) pending.required = pending.tail
    return pending
  }

  /** Resolves once every write of `owner` made so far is stored; rejects with the first failure among them. */
  async settle(owner: Owner | undefined): Promise<void> {
    if (owner === undefined) return
    const slot = this.#pending.get(owner)
    if (slot === undefined) return
    while (slot.count > 0) await slot.tail
    this.#pending.drop(owner, slot)
    if (slot.failure !== undefined) throw slot.failure
  }

  /**
   * Before a reply leaves: waits for the owner's writes that may not be lost (see `deferrable`),
   * and reports any failure so far. A deferred write is already sent; should it fail, the owner's
   * next call here reports it (its intents and this hook settle first).
   */
  async settleForReply(owner: Owner | undefined): Promise<void> {
    if (owner === undefined) return
    const slot = this.#pending.get(owner)
    if (slot === undefined) return
    await slot.required
    if (slot.failure === undefined) return
    this.#pending.drop(owner, slot)
    throw slot.failure
  }

  /**
   * What the owner holds for `target`, without a wait when nothing of the owner is pending: a memory
   * or file store answers synchronously here, as the policy did before it had a ledger.
   */
  lookup(owner: Owner | undefined, target: FsTarget): FsObservation | undefined | Promise<FsObservation | undefined> {
    if (owner === undefined) return undefined
    return this.#pending.get(owner) !== undefined ? this.get(owner, target) : this.ledger.get(owner, target.targetKey)
  }

  async get(owner: Owner | undefined, target: FsTarget): Promise<FsObservation | undefined> {
    if (owner === undefined) return undefined
    const slot = this.#pending.get(owner)
    // The owner's writes went out in order, one command each: a lookup sent now comes after them, so
    // it need not wait for their answers first (one round trip, not two). Else it is sent once they are in.
    const early = slot?.inOrder === true && this.ledger.record !== undefined ? this.ledger.get(owner, target.targetKey) : undefined
    if (early instanceof Promise) early.catch(() => {})
    await this.settle(owner)
    return slot?.inOrder === true && early !== undefined ? early : this.ledger.get(owner, target.targetKey)
  }
}

/** A copy of an observation, for a write that starts later than the emit (the emitter may reuse its object). */
function copyOf(observation: FsObservation): FsObservation {
  return JSON.parse(JSON.stringify(observation)) as FsObservation
}
