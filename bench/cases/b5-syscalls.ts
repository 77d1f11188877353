import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { type CaseResult, fmtBytes } from '../harness/case'
import { config } from '../harness/config'
import { BENCH } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { isRuntimeLabel, straceDuring, type SyscallCounts } from '../harness/strace'
import { SYSCALL_REASONS } from './b5-reasons'

const TITLE = 'system calls'
const BASELINE = '`write-file-atomic` (`fsync: true`) for the same create and replace'
/** Operations per strace session: per-operation counts are the session's counts ÷ this. */
const REPEAT = 20

const COLUMNS = [
  ['read', '`read` tool'],
  ['create', '`write` tool, create'],
  ['replace', '`write` tool, replace'],
  ['edit', '`edit` tool'],
  ['wfa-create', 'wfa create'],
  ['wfa-replace', 'wfa replace'],
] as const

/**
 * Counts system calls per operation with `strace -c -f` attached to a warmed-up child process.
 * Each operation runs REPEAT times per session; an idle session with the same stdin/stdout
 * handshake is subtracted, so what remains is the operations' own calls.
 */
export async function runB5(scratch: Scratch): Promise<CaseResult> {
  const dir = await scratch.dir('b5')
  const bytes = config.b5.fileBytes
  const child = spawn(process.execPath, ['--conditions=dsh-source', '--import', 'tsx', join(BENCH, 'cases/b5-child.ts'), dir, String(bytes), String(REPEAT)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const expectLine = async (want: string) => {
    const { value, done } = await lines.next()
    if (done || value !== want) throw new Error(`B5 child: expected "${want}", got ${done ? 'end of output' : `"${value}"`}`)
  }
  const perOp: Record<string, SyscallCounts> = {}
  try {
    await expectLine('ready')
    const session = (op: string) => straceDuring(child.pid!, join(dir, `strace-${op}.txt`), async () => {
      child.stdin!.write(`${op}\n`)
      await expectLine('done')
    })
    const idle = await session('idle')
    for (const [op] of COLUMNS) {
      const counts = await session(op)
      perOp[op] = {}
      for (const [name, calls] of Object.entries(counts)) {
        const own = (calls - (idle[name] ?? 0)) / REPEAT
        if (own >= 0.5) perOp[op]![name] = own
      }
    }
    child.stdin!.write('exit\n')
  } finally {
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r))
  }
  const labels = [...new Set(COLUMNS.flatMap(([op]) => Object.keys(perOp[op]!)))].sort()
  const cell = (op: string, label: string) => {
    const value = perOp[op]![label]
    return value === undefined ? '' : Number.isInteger(value) ? String(value) : value.toFixed(1)
  }
  const total = (op: string, runtime: boolean) =>
    Object.entries(perOp[op]!).filter(([label]) => isRuntimeLabel(label) === runtime).reduce((a, [, b]) => a + b, 0)
  const rows: string[][] = []
  for (const runtime of [false, true]) {
    for (const label of labels.filter((l) => isRuntimeLabel(l) === runtime)) {
      rows.push([`\`${label}\``, ...COLUMNS.map(([op]) => cell(op, label)), SYSCALL_REASONS[label] ?? '(not explained yet: new since `bench/cases/b5-reasons.ts` was written)'])
    }
    rows.push([runtime ? '**runtime total**' : '**file-system total**', ...COLUMNS.map(([op]) => total(op, runtime).toFixed(0)), ''])
  }
  const fmt = (op: string) => total(op, false).toFixed(0)
  return {
    id: 'B5', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `System calls per operation on a ${fmtBytes(bytes)} file, all threads (mean of ${REPEAT} operations, an idle session with the same handshake subtracted). File-system calls come first; the runtime rows are libuv handing work to its thread pool and waking the loop, V8's allocator and signal handling, whose counts vary from run to run.`,
      header: ['system call', ...COLUMNS.map(([, label]) => label), 'why dsh needs it'],
      rows,
    }],
    verdicts: [{
      target: 'state the counts and why each is needed',
      measured: `file-system calls: read ${fmt('read')}, create ${fmt('create')} (wfa ${fmt('wfa-create')}), replace ${fmt('replace')} (wfa ${fmt('wfa-replace')}), edit ${fmt('edit')}`,
      met: null,
    }],
    notes: [],
  }
}
