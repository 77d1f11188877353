import type { Summary } from './stats'

export type CaseId = 'B1' | 'B2' | 'B3' | 'B4' | 'B5' | 'B6' | 'B7' | 'B8' | 'B9' | 'B10' | 'B11' | 'B12' | 'B13' | 'B14' | 'B15' | 'B16'

/** One target of the spec and what this run found for it. `met: null` = stated, not judged (B5, B7). */
export interface Verdict {
  target: string
  measured: string
  met: boolean | null
}

export interface Table {
  caption?: string
  header: string[]
  rows: string[][]
}

export interface CaseResult {
  id: CaseId
  title: string
  baseline: string
  /** Why the case was not measured; when set, tables and verdicts are empty. */
  notMeasured?: string
  tables: Table[]
  verdicts: Verdict[]
  notes: string[]
}

export function notMeasured(id: CaseId, title: string, baseline: string, why: string, target: string): CaseResult {
  return { id, title, baseline, notMeasured: why, tables: [], verdicts: [{ target, measured: `not measured: ${why}`, met: null }], notes: [] }
}

/** `1.23 ms (1.10–1.50)`: the median, then the spread of the same series. */
export function fmtMs(s: Summary, digits = 2): string {
  return `${fix(s.median, digits)} ms (${fix(s.min, digits)}–${fix(s.max, digits)})`
}

export function fmtRatio(r: number): string {
  // A ratio far below 1 keeps two significant digits instead of printing 0.00×.
  return r !== 0 && r < 0.01 ? `${r.toPrecision(2)}×` : `${r.toFixed(2)}×`
}

export function fix(value: number, digits: number): string {
  // Small values keep significant digits instead of printing 0.00.
  if (value !== 0 && Math.abs(value) < 10 ** -digits * 10) return value.toPrecision(2)
  return value.toFixed(digits)
}

export function fmtBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(bytes % 1024 ** 2 === 0 ? 0 : 1)} MiB`
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`
  return `${bytes} B`
}
