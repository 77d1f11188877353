import type { CaseResult, Table } from './case'
import type { MachineInfo } from './machine'

export interface RunInfo {
  machine: MachineInfo
  versions: Array<[string, string]>
  quick: boolean
  startedAt: string
  wallSeconds: number
  loadBefore: string
  loadAfter: string
}

function table(t: Table): string {
  const escape = (cell: string) => cell.replaceAll('|', '\\|').replaceAll('\n', ' ')
  const lines = [`| ${t.header.map(escape).join(' | ')} |`, `|${t.header.map(() => '---').join('|')}|`]
  for (const row of t.rows) lines.push(`| ${row.map(escape).join(' | ')} |`)
  return (t.caption ? `${t.caption}\n\n` : '') + lines.join('\n')
}

function verdict(met: boolean | null): string {
  return met === null ? 'stated' : met ? '**met**' : '**missed**'
}

/** The whole of `docs/benchmarks.md`: written by the suite, never by hand. */
export function renderReport(info: RunInfo, cases: readonly CaseResult[]): string {
  const out: string[] = []
  out.push('# Benchmarks')
  out.push('')
  out.push('Written by `pnpm bench` (code in `bench/`); do not edit by hand. Every figure below was measured in the run')
  out.push('described here, each case interleaved with its baseline (A B A B …). Figures are medians with min–max of')
  out.push('the same series; ratios are ratios of medians (subject ÷ baseline, lower is better). Inputs are generated')
  out.push('by the suite in a scratch directory and deleted at the end.')
  out.push('')
  if (info.quick) out.push('> **Quick mode** (`DSH_BENCH_QUICK=1`): small inputs and few rounds. These figures only show that the suite runs.\n')
  out.push('## Machine and run')
  out.push('')
  out.push(table({
    header: ['', ''],
    rows: [
      ['started', info.startedAt],
      ['CPU', `${info.machine.cpu} × ${info.machine.cores}`],
      ['memory', info.machine.memory],
      ['kernel', info.machine.kernel],
      ['scratch filesystem', info.machine.scratchFs],
      ['load average before (1/5/15 min)', info.loadBefore],
      ['load average after', info.loadAfter],
      ['wall time of the suite', `${info.wallSeconds.toFixed(0)} s`],
    ],
  }))
  out.push('')
  out.push('## Versions')
  out.push('')
  out.push(table({ header: ['component', 'version'], rows: info.versions.map(([a, b]) => [a, b]) }))
  out.push('')
  out.push('## Targets')
  out.push('')
  const rows: string[][] = []
  for (const c of cases) for (const v of c.verdicts) rows.push([c.id, v.target, v.measured, verdict(v.met)])
  out.push(table({ header: ['case', 'target', 'measured', 'verdict'], rows }))
  out.push('')
  for (const c of cases) {
    out.push(`## ${c.id} ${c.title}`)
    out.push('')
    out.push(`Baseline: ${c.baseline}.`)
    out.push('')
    if (c.notMeasured) {
      out.push(`**Not measured:** ${c.notMeasured}`)
      out.push('')
    }
    for (const t of c.tables) {
      out.push(table(t))
      out.push('')
    }
    if (c.notes.length > 0) {
      out.push('Notes:')
      out.push('')
      for (const n of c.notes) out.push(`- ${n}`)
      out.push('')
    }
  }
  return `${out.join('\n').trimEnd()}\n`
}
