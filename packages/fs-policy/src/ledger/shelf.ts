/** One remembered value and when it stops counting. */
export interface Slot<V> {
  value: V
  expires: number
}

/**
 * Values per owner per key, bounded three ways: an owner keeps at most `maxPerOwner` keys (the one
 * written least recently goes first), at most `maxOwners` owners are kept (likewise), and a value
 * past its expiry reads as missing. Maps keep insertion order, so moving a written key or owner to
 * the end keeps both orders in O(1). Reads do not reorder: what is evicted depends only on the
 * sequence of writes, so replaying a journal rebuilds exactly the same shelf.
 */
export class Shelf<V> {
  #owners = new Map<string, Map<string, Slot<V>>>()

  constructor(private readonly maxPerOwner: number, private readonly maxOwners: number) {}

  get(owner: string, key: string, now: number): V | undefined {
    const slots = this.#owners.get(owner)
    const slot = slots?.get(key)
    if (slot === undefined) return undefined
    if (slot.expires > now) return slot.value
    slots!.delete(key)
    if (slots!.size === 0) this.#owners.delete(owner)
    return undefined
  }

  set(owner: string, key: string, value: V, expires: number): void {
    let slots = this.#owners.get(owner)
    if (slots === undefined) slots = new Map()
    else this.#owners.delete(owner)
    this.#owners.set(owner, slots)
    slots.delete(key)
    slots.set(key, { value, expires })
    if (slots.size > this.maxPerOwner) slots.delete(slots.keys().next().value!)
    if (this.#owners.size > this.maxOwners) this.#owners.delete(this.#owners.keys().next().value!)
  }

  /** Every live slot, owners and keys in write order (a compaction writes them out in this order). */
  *entries(now: number): Generator<[owner: string, key: string, slot: Slot<V>]> {
    for (const [owner, slots] of this.#owners) {
      for (const [key, slot] of slots) if (slot.expires > now) yield [owner, key, slot]
    }
  }

  get owners(): number {
    return this.#owners.size
  }

  clear(): void {
    this.#owners.clear()
  }
}
