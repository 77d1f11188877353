/** `DSH_BENCH_QUICK=1`: small inputs and few rounds, to check the suite runs end to end (figures not meaningful). */
export const QUICK = process.env.DSH_BENCH_QUICK === '1'

const KiB = 1024
const MiB = 1024 * KiB
const GiB = 1024 * MiB

export const sizes = { KiB, MiB, GiB }

export const config = {
  b1: {
    /** The spec's ~1 GiB, ~12 M lines: 90-byte lines on average. */
    fileBytes: QUICK ? 16 * MiB : GiB,
    rounds: QUICK ? 5 : 21,
    /** Windows far into the file scan hundreds of MiB per call: fewer rounds. */
    farRounds: QUICK ? 3 : 5,
    /** Upstream reads to the end of the file every time: a few rounds per window, interleaved with ours. */
    upstreamRounds: QUICK ? 2 : 3,
    warmup: QUICK ? 1 : 2,
  },
  b2: {
    sizes: QUICK ? [4 * KiB, MiB] : [4 * KiB, MiB, 64 * MiB],
    /** Rounds per size: fsync dominates, so large sizes get fewer rounds to stay inside the time budget. */
    // Small writes differ from the floor by tenths of a millisecond against fsyncs that vary by more:
    // enough rounds that five stretches of the run can be compared with each other.
    rounds: (bytes: number) => (QUICK ? 3 : bytes >= 64 * MiB ? 5 : bytes >= MiB ? 40 : 100),
    warmup: QUICK ? 1 : 2,
  },
  b3: { fileBytes: QUICK ? MiB : 10 * MiB, rounds: QUICK ? 3 : 21, warmup: QUICK ? 1 : 2 },
  b4: { fileBytes: 16 * KiB, rounds: QUICK ? 50 : 1000, warmup: QUICK ? 10 : 100 },
  b5: { fileBytes: 64 * KiB },
  b6: { latencyMs: 20, rounds: QUICK ? 2 : 4 },
  b7: { calls: QUICK ? 50 : 500, warmup: QUICK ? 10 : 50 },
  b11: { rounds: QUICK ? 20 : 200, warmup: QUICK ? 5 : 20 },
  b12: { rounds: QUICK ? 3 : 15, warmup: QUICK ? 1 : 2 },
  b8: { sessions: QUICK ? 200 : 2000 },
  /** Cold starts are a process spawn each (~0.3 s): enough rounds for a p90, few enough to stay under a minute. */
  b10: { rounds: QUICK ? 5 : 21, warmup: QUICK ? 1 : 2 },
  /**
   * A 25-megapixel photo-like JPEG (downscaled to 8,000 px a side) and a PDF of text pages; a child
   * process per round. Larger images run into Debian's ImageMagick policy (256 MiB of pixel cache in
   * memory, then 1 GiB on disk): convert then fails or thrashes, which would measure the policy.
   */
  b16: { width: QUICK ? 3000 : 8400, height: QUICK ? 2000 : 3000, pages: QUICK ? 20 : 200, rounds: QUICK ? 2 : 3 },
}
