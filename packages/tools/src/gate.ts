import type { ToolConcurrency } from './types'

interface Waiter {
  mode: ToolConcurrency
  admit: () => void
}

/** A first-in-first-out readers-writer gate: `shared` tasks overlap, an `exclusive` task runs alone. */
class Lane {
  #shared = 0
  #exclusive = false
  #queue: Waiter[] = []

  async run<T>(mode: ToolConcurrency, task: () => Promise<T>): Promise<T> {
    await new Promise<void>((admit) => {
      this.#queue.push({ mode, admit })
      this.#pump()
    })
    try {
      return await task()
    } finally {
      if (mode === 'shared') this.#shared--
      else this.#exclusive = false
      this.#pump()
    }
  }

  // Admit from the head only, so a waiting exclusive call is not starved by later shared ones.
  #pump(): void {
    for (let head = this.#queue[0]; head !== undefined; head = this.#queue[0]) {
      if (this.#exclusive || (head.mode === 'exclusive' && this.#shared > 0)) return
      this.#queue.shift()
      if (head.mode === 'shared') this.#shared++
      else this.#exclusive = true
      head.admit()
    }
  }
}

/**
 * Applies each tool's concurrency flag among the calls of one session (the parallel tool calls of
 * one model turn). Different sessions never wait for each other: files they share are protected by
 * the provider's own per-target lock. A tool must not call `ctx.tools.execute` for its own session
 * from inside an exclusive call: it would wait for itself.
 */
export class ConcurrencyGate {
  #lanes = new WeakMap<object, Lane>()
  #anonymous = new Lane()

  run<T>(session: object | undefined, mode: ToolConcurrency, task: () => Promise<T>): Promise<T> {
    if (session === undefined) return this.#anonymous.run(mode, task)
    let lane = this.#lanes.get(session)
    if (lane === undefined) this.#lanes.set(session, (lane = new Lane()))
    return lane.run(mode, task)
  }
}
