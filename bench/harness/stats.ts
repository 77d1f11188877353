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
