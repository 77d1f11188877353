import { execFile, spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { promisify } from 'node:util'
import { bundle } from '../harness/bundle'
import { type CaseResult, fmtBytes, fmtMs, fmtRatio, notMeasured, type Verdict } from '../harness/case'
import { QUICK } from '../harness/config'
import { BENCH } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { ratio, summarize } from '../harness/stats'

const TITLE = 'Discovery on a large tree (grep, glob)'
const BASELINE = '`rg -l LITERAL` (ripgrep) and `find -name \'*.ts\'` on the same tree, each a process spawn per call'
const FILES = QUICK ? 10_000 : 100_000
const PER_DIR = 100
const ROUNDS = QUICK ? 3 : 7
const LITERAL = 'NEEDLE_7f3a'

/** FILES files of ~300 bytes, PER_DIR per directory, two levels deep; one file in 1,000 holds the literal. */
async function generate(dir: string): Promise<void> {
  const kinds = ['ts', 'js', 'md', 'json']
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const sub = join(dir, `pkg${Math.floor(d / 10)}`, `mod${d % 10}`)
    await mkdir(sub, { recursive: true })
    await Promise.all(Array.from({ length: PER_DIR }, (_, f) => {
      const n = d * PER_DIR + f
      const body = `// file ${n}\nexport const value${n} = ${n}\n${'const filler = "lorem ipsum dolor sit amet";\n'.repeat(5)}`
      return writeFile(join(sub, `f${f}.${kinds[n % kinds.length]}`), n % 1000 === 7 ? `${body}const hit = '${LITERAL}'\n` : body)
    }))
  }
}

async function timeCommand(command: string, args: string[], cwd: string): Promise<{ ms: number[]; lines: number }> {
  const once = () => new Promise<{ ms: number; lines: number }>((resolve, reject) => {
    const start = performance.now()
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] })
    let lines = 0
    child.stdout.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++
    })
    child.on('error', reject)
    child.on('close', () => resolve({ ms: performance.now() - start, lines }))
  })
  const warm = await once()
  const ms: number[] = []
  for (let i = 0; i < ROUNDS; i++) ms.push((await once()).ms)
  return { ms, lines: warm.lines }
}

/**
 * Peak RSS of one more, untimed run of a baseline, from GNU time (`%M`, KiB); `undefined` without
 * it (Debian package `time`). A separate run, so the timed series carries no wrapper.
 */
async function baselinePeak(command: string, args: string[], cwd: string): Promise<number | undefined> {
  try {
    const { stderr } = await promisify(execFile)('/usr/bin/time', ['-f', 'maxrss=%M', command, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 })
    const match = /maxrss=(\d+)/.exec(stderr)
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

interface ChildRun { ms: number[]; afterBoot: number; peak: number; firstLine: string }

async function timeTool(script: string, dir: string, tool: string, args: Record<string, unknown>): Promise<ChildRun> {
  const { stdout } = await promisify(execFile)(process.execPath, [script, dir, tool, JSON.stringify(args), String(ROUNDS)], { maxBuffer: 16 * 1024 * 1024 })
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildRun
}

/**
 * `grep` of a literal and `glob` of `**\/*.ts` through the tools (the default stack: fs-local rooted
 * at the tree, policy, tool-fs), in a bundled child on bare node, against rg and find spawned on
 * the same tree. Warm cache: every series starts with an untimed call.
 */
export async function runB9(scratch: Scratch): Promise<CaseResult> {
  const rg = await promisify(execFile)('rg', ['--version']).then(() => true, () => false)
  if (!rg) return notMeasured('B9', TITLE, BASELINE, 'ripgrep (`rg`) is not installed (Debian package `ripgrep`)', 'grep and glob within 2× of rg and find')
  const dir = await scratch.dir('b8')
  const tree = join(dir, 'tree')
  await mkdir(tree)
  await generate(tree)
  const script = join(dir, 'b9-child.mjs')
  await bundle(join(BENCH, 'cases/b9-child.ts'), script)

  const rgArgs = ['-l', '--no-messages', LITERAL, '.']
  const findArgs = ['.', '-name', '*.ts']
  const rgRun = await timeCommand('rg', rgArgs, tree)
  const findRun = await timeCommand('find', findArgs, tree)
  const rgPeak = await baselinePeak('rg', rgArgs, tree)
  const findPeak = await baselinePeak('find', findArgs, tree)
  const peakText = (bytes: number | undefined) => (bytes === undefined ? 'not measured (no GNU time)' : fmtBytes(bytes))
  const grepRun = await timeTool(script, tree, 'grep', { pattern: LITERAL })
  const globRun = await timeTool(script, tree, 'glob', { pattern: '**/*.ts' })
  const rows = [
    ['`grep` literal (files_with_matches)', fmtMs(summarize(grepRun.ms)), `rg -l: ${fmtMs(summarize(rgRun.ms))}`, fmtRatio(ratio(summarize(grepRun.ms), summarize(rgRun.ms))), fmtBytes(grepRun.peak), peakText(rgPeak)],
    ['`glob` `**/*.ts`', fmtMs(summarize(globRun.ms)), `find -name: ${fmtMs(summarize(findRun.ms))}`, fmtRatio(ratio(summarize(globRun.ms), summarize(findRun.ms))), fmtBytes(globRun.peak), peakText(findPeak)],
  ]
  const grepRatio = ratio(summarize(grepRun.ms), summarize(rgRun.ms))
  const globRatio = ratio(summarize(globRun.ms), summarize(findRun.ms))
  const verdicts: Verdict[] = [
    { target: '`grep` of a literal within 2× of `rg`', measured: fmtRatio(grepRatio), met: grepRatio <= 2 },
    { target: '`glob` of `**/*.ts` within 2× of `find`', measured: fmtRatio(globRatio), met: globRatio <= 2 },
  ]
  return {
    id: 'B9',
    title: TITLE,
    baseline: BASELINE,
    tables: [{
      caption: `${FILES.toLocaleString('en')} files in ${FILES / PER_DIR} directories; ${ROUNDS} timed rounds after one warm-up each. Peak RSS (VmHWM) is of the child process that runs the tool, its search threads included (boot included; ${fmtBytes(grepRun.afterBoot)} after boot); a baseline's is its maximum RSS in one more untimed run (GNU time).`,
      header: ['operation', 'dsh tool p50 (min–max)', 'baseline p50 (min–max)', 'ratio', 'dsh peak RSS', 'baseline peak RSS'],
      rows,
    }],
    verdicts,
    notes: [
      `Outputs agree in size: rg printed ${rgRun.lines} files; grep said "${grepRun.firstLine}"; find printed ${findRun.lines} paths; glob said "${globRun.firstLine}".`,
      'The tools honour .gitignore and skip .git like rg; find does neither. The tool figure includes resolving the path and rendering the result; the baselines include a process spawn.',
      `rg searches with a thread per core (${availableParallelism()} here); grep on the local disk reads on its own thread (helper threads measured 19 % slower on 2 cores, same run, and were removed).`,
    ],
  }
}
