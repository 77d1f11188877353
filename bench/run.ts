import { writeFile } from 'node:fs/promises'
import { runB1 } from './cases/b1-read-window'
import { runB2 } from './cases/b2-durable-write'
import { runB3 } from './cases/b3-edit'
import { runB4 } from './cases/b4-policy'
import { runB5 } from './cases/b5-syscalls'
import { runB6 } from './cases/b6-e2b'
import { runB7 } from './cases/b7-mcp'
import type { CaseResult } from './harness/case'
import { QUICK } from './harness/config'
import { loadAverage, machineInfo } from './harness/machine'
import { REPORT } from './harness/paths'
import { renderReport } from './harness/report'
import { Scratch } from './harness/scratch'
import { versionInfo } from './harness/versions'

const started = Date.now()
const loadBefore = loadAverage()
const scratch = await Scratch.create()
const cases: CaseResult[] = []
const only = process.env.DSH_BENCH_ONLY?.split(',')
const runners: Array<[string, (s: Scratch) => Promise<CaseResult>]> = [['B1', runB1], ['B2', runB2], ['B3', runB3], ['B4', runB4], ['B5', runB5], ['B6', runB6], ['B7', runB7]]
try {
  for (const [id, runner] of runners) {
    if (only && !only.includes(id)) continue
    const t = Date.now()
    process.stderr.write(`${id}…\n`)
    cases.push(await runner(scratch))
    process.stderr.write(`${id} done in ${((Date.now() - t) / 1000).toFixed(1)} s\n`)
  }
} finally {
  await scratch.remove()
}
const report = renderReport({
  machine: machineInfo(scratch.root.replace(/\/[^/]+$/, '')),
  versions: versionInfo(),
  quick: QUICK,
  startedAt: new Date(started).toISOString(),
  wallSeconds: (Date.now() - started) / 1000,
  loadBefore,
  loadAfter: loadAverage(),
}, cases)
await writeFile(REPORT, report)
process.stderr.write(`wrote ${REPORT}\n`)
