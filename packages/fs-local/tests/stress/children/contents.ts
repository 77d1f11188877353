/**
 * The exact bytes of generation `i` of each crash target. The parent and the child compute the
 * same function, so after a kill the parent can say which generation a file holds and whether it
 * is byte for byte that generation (no mix, no truncation). Sizes cycle from one line to a few MiB
 * so kills land in every phase of staging, fsync and publication.
 */
export const CRASH_TARGETS = ['w/written.txt', 'w/edited.txt', 'deep/er/guarded.txt'] as const
export type CrashTarget = (typeof CRASH_TARGETS)[number]

const SIZES = [1, 3_000, 70_000, 300_000, 1_500_000]
// The edited file keeps one size: an edit rewrites only its header line.
const EDIT_BODY = 'edit body line without a hash sign\n'.repeat(8_000)

function body(target: CrashTarget, generation: number): string {
  if (target === 'w/edited.txt') return EDIT_BODY
  const size = SIZES[generation % SIZES.length]!
  const line = `${target} generation ${generation} filler\n`
  return line.repeat(Math.ceil(size / line.length))
}

export function header(generation: number): string {
  return `#${generation}\n`
}

export function contentOf(target: CrashTarget, generation: number): string {
  return header(generation) + body(target, generation)
}

/** The generation a file claims in its first line, or undefined when the first line is not a header. */
export function generationOf(text: string): number | undefined {
  const match = /^#(\d+)\n/.exec(text)
  return match ? Number(match[1]) : undefined
}
