import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runB1 } from './cases/b1-read-window'
import { runB2 } from './cases/b2-durable-write'
import { runB3 } from './cases/b3-edit'
import { runB4 } from './cases/b4-policy'
import { runB5 } from './cases/b5-syscalls'
import { runB6 } from './cases/b6-e2b'
import { runB7 } from './cases/b7-mcp'
import { runB8 } from './cases/b8-sessions'
import { runB9 } from './cases/b9-discovery'
import { runB10 } from './cases/b10-cold-start'
import { runB11 } from './cases/b11-mcp-calls'
import { runB12 } from './cases/b12-upstream-cold-start'
import { runB13 } from './cases/b13-ledger'
import { runB14 } from './cases/b14-replicas'
import { runB15 } from './cases/b15-fleet'
import { runB16 } from './cases/b16-media'
import { type CaseId, type CaseResult, notMeasured } from './harness/case'
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
/** `DSH_BENCH_ONLY=B1,B3`: run only these cases (while working on one). */
const only = process.env.DSH_BENCH_ONLY?.split(',')
const runners: Array<[string, (s: Scratch) => Promise<CaseResult>]> = [['B1', runB1], ['B2', runB2], ['B3', runB3], ['B4', runB4], ['B5', runB5], ['B6', runB6], ['B7', runB7], ['B8', runB8], ['B9', runB9], ['B10', runB10], ['B11', runB11], ['B12', runB12], ['B13', runB13], ['B14', runB14], ['B15', runB15], ['B16', runB16]]
try {
  for (const [id, runner] of runners) {
    if (only && !only.includes(id)) continue
    const t = Date.now()
    process.stderr.write(`${id}…\n`)
    try {
      cases.push(await runner(scratch))
    } catch (error) {
      // A case whose packages are broken right now is reported as such; the other cases still run.
      const why = `the case failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`
      process.stderr.write(`${id} ${why}\n`)
      cases.push(notMeasured(id as CaseId, 'see the spec (issue 6)', 'see the spec (issue 6)', why, 'all targets of this case'))
    }
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
// Only a full run of every case replaces the checked-in report; quick or partial runs go to a temp file.
const target = QUICK || only ? join(tmpdir(), 'dsh-benchmarks.partial.md') : REPORT
await writeFile(target, report)
process.stderr.write(`wrote ${target}\n`)
