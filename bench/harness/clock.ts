/** Monotonic milliseconds with sub-microsecond resolution. */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6
}
