import { now } from './clock'

/** One contender of a comparison. `prepare` runs untimed before every timed `run` (fresh names, cleanup). */
export interface Variant {
  name: string
  prepare?: (round: number) => Promise<void> | void
  run: (round: number) => Promise<unknown>
  /**
   * `run` times itself and resolves to the milliseconds that count, for a step that must sit
   * between two measured ones without being measured (a rename between two fsyncs).
   */
  timesItself?: boolean
}

export interface InterleaveOptions {
  rounds: number
  /** Untimed rounds first: JIT, page cache and lazy imports settle before anything is recorded. */
  warmup: number
  /**
   * Start each round one variant later (A B C, B C A, C A B …), so that no variant always runs
   * first after the previous round's last: for differences of microseconds the position matters.
   */
  rotate?: boolean
}

export interface InterleaveResult {
  /** Milliseconds per timed round, by variant name. */
  samples: Record<string, number[]>
  /** The variant names in the order they ran, warmup included (A B A B …). */
  order: string[]
}

/**
 * Runs the variants alternately, A B A B …, so slow drift of the machine (other processes, thermal
 * state, page cache) hits every variant alike and ratios of medians stay meaningful on a busy box.
 */
export async function interleave(variants: readonly Variant[], options: InterleaveOptions): Promise<InterleaveResult> {
  const samples: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v.name, []]))
  const order: string[] = []
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[options.rotate ? (k + round) % variants.length : k]!
      await variant.prepare?.(round)
      const start = now()
      const returned = await variant.run(round)
      const elapsed = variant.timesItself ? (returned as number) : now() - start
      order.push(variant.name)
      if (round >= options.warmup) samples[variant.name]!.push(elapsed)
    }
  }
  return { samples, order }
}
