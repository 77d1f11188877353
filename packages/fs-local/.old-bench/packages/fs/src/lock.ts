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

  /** Number of keys with a task running or waiting. */
  get size(): number {
    return this.#tails.size
  }
}
