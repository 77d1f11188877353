/**
 * A per-key first-in-first-out mutex. Mutations of one target run one at a time, in arrival order;
 * different keys never wait for each other. Keys are dropped once idle.
 */
export class KeyedLock<K = string> {
  #tails = new Map<K, Promise<void>>()

  async run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key)
    let release!: () => void
    const done = new Promise<void>((resolve) => (release = resolve))
    const tail = previous ? previous.then(() => done) : done
    this.#tails.set(key, tail)
    try {
      if (previous) await previous
      return await task()
    } finally {
      release()
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }

  /**
   * Runs `task` holding every key of `keys` (duplicates once). Keys are taken in one sorted order,
   * so two tasks over the same keys given in opposite orders (a move each way) cannot deadlock.
   */
  runAll<T>(keys: readonly K[], task: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0))
    const take = (index: number): Promise<T> => index === sorted.length ? task() : this.run(sorted[index]!, () => take(index + 1))
    return take(0)
  }

  /** Number of keys with a task running or waiting. */
  get size(): number {
    return this.#tails.size
  }
}
