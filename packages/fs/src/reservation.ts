import { EDIT_COST_PER_BYTE, type MemoryBudget } from './budget'

/**
 * Thrown by a plan (`planEdit`, `planEdits`, `applyEdits`) when a result it is about to build
 * would need more memory than its caller holds: `bytes` is what it needs. Nothing was built; the
 * caller reserves that much and plans again (`planReserved`).
 */
export class MemoryShortfall extends Error {
  override readonly name = 'MemoryShortfall'
  constructor(readonly bytes: number) {
    super(`needs ${bytes} bytes of memory`)
  }
}

/** What building a result of `resultBytes` holds at once: old and new, bytes and text. */
export function resultCost(resultBytes: number): number {
  return EDIT_COST_PER_BYTE * resultBytes
}

/** How much an edit's result may grow past the file before its plan must reserve more and plan again. */
export const EDIT_GROWTH_BYTES = 16 * 1024

/**
 * What an edit of a `size`-byte file reserves before it plans: its result's cost with room for
 * `EDIT_GROWTH_BYTES` more (up to `maxTextBytes`), so an edit that adds a line plans once instead of
 * twice (every other B11 edit did). Never above `capacity`, unless the file alone costs more.
 */
export function editReservation(size: number, maxTextBytes: number, capacity: number): number {
  const bare = resultCost(Math.min(size, maxTextBytes))
  return Math.max(bare, Math.min(resultCost(Math.min(size + EDIT_GROWTH_BYTES, maxTextBytes)), capacity))
}

/**
 * The memory one mutation holds from the budget. It can grow while the mutation plans: a larger
 * amount is waited for only after the current one is given back, so a reservation never waits
 * while it holds memory (two that grew together would otherwise wait on each other for ever).
 */
export class Reservation {
  #release: () => void = () => {}
  #bytes = 0

  constructor(private readonly budget: MemoryBudget, private readonly what: string, private readonly path: string | undefined, private readonly signal?: AbortSignal) {}

  get bytes(): number {
    return this.#bytes
  }

  /** Holds at least `bytes` once it resolves. */
  async ensure(bytes: number): Promise<void> {
    if (bytes <= this.#bytes) return
    this.release()
    this.#release = await this.budget.reserve(bytes, this.what, this.path, this.signal)
    this.#bytes = bytes
  }

  /** Gives everything back (once; `ensure` may hold again). */
  release(): void {
    this.#release()
    this.#release = () => {}
    this.#bytes = 0
  }
}

/**
 * Runs `plan` with what `held` holds; when the plan finds it needs more (`MemoryShortfall`), waits
 * for that much, at least twice as much as before, and plans again from the start. A plan that
 * keeps growing doubles its reservation each time, so it plans at most about log2(limit / start)
 * times, and the work of all the passes together is about twice the last one's.
 */
export async function planReserved<P>(held: Reservation, plan: (heldBytes: number) => P): Promise<P> {
  for (;;) {
    try {
      return plan(held.bytes)
    } catch (error) {
      if (!(error instanceof MemoryShortfall)) throw error
      await held.ensure(Math.max(error.bytes, 2 * held.bytes))
    }
  }
}
