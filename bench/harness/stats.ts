/** Summary of one series of samples: the median is the figure, min–max shows the spread. */
export interface Summary {
  median: number
  min: number
  max: number
  /** 99th percentile (nearest rank); only meaningful for long series. */
  p99: number
  n: number
}

/** Nearest-rank percentile of an ascending array, `p` in [0, 100]. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('percentile of an empty series')
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new Error('median of an empty series')
  const sorted = [...samples].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: median(sorted), min: sorted[0]!, max: sorted[sorted.length - 1]!, p99: percentile(sorted, 99), n: sorted.length }
}

/** Ratio of medians: how many times the baseline's cost the subject takes (lower is better). */
export function ratio(subject: Summary, baseline: Summary): number {
  return subject.median / baseline.median
}

/**
 * The same ratio in each of `blocks` consecutive stretches of two interleaved series (round i of
 * one beside round i of the other): how far the figure moves from one part of the run to the
 * next, which min–max of single samples does not show. `undefined` for series too short to split.
 */
export function blockRatios(subject: readonly number[], baseline: readonly number[], blocks = 5): { min: number; max: number; blocks: number; size: number } | undefined {
  const size = Math.floor(Math.min(subject.length, baseline.length) / blocks)
  if (size < 5) return undefined
  const ratios: number[] = []
  for (let b = 0; b < blocks; b++) ratios.push(median(subject.slice(b * size, (b + 1) * size)) / median(baseline.slice(b * size, (b + 1) * size)))
  return { min: Math.min(...ratios), max: Math.max(...ratios), blocks, size }
}
