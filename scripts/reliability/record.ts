import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Sizes and result recording shared by the reliability specs (fs-local, tool-fs, fs-e2b stress
 * folders). `pnpm test:stress` sets DSH_STRESS=1 and runs the full sizes; plain `pnpm test`
 * runs the reduced sizes and records nothing, so CI never overwrites the report with smaller numbers.
 */
export const STRESS = process.env.DSH_STRESS === '1'

/** The reduced size under `pnpm test`, the full size under `pnpm test:stress`. */
export function sized(reduced: number, full: number): number {
  return STRESS ? full : reduced
}

/** Where each spec leaves its section for `scripts/reliability-report.ts`. */
export const CACHE_DIR = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'dsh-reliability')

export interface Section {
  /** Sort key and file name, e.g. `1-crash-safety`. */
  id: string
  title: string
  /** What was run and how it was judged, in a sentence or two. */
  method: string
  /** Counts and outcomes, shown as a two-column table. */
  facts: [string, string | number][]
  /** Optional per-case table: header row first. */
  table?: string[][]
}

/** Writes a section of docs/reliability.md, only during a stress run. */
export async function recordSection(section: Section): Promise<void> {
  if (!STRESS) return
  await mkdir(CACHE_DIR, { recursive: true })
  await writeFile(join(CACHE_DIR, `${section.id}.json`), JSON.stringify({ ...section, recordedAt: new Date().toISOString() }, null, 2))
}
