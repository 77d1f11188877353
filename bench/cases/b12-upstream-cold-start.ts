import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { buildState } from '../harness/build-state'
import { type CaseResult, fmtMs, fmtRatio, notMeasured } from '../harness/case'
import { config } from '../harness/config'
import { interleave } from '../harness/interleave'
import { REPO } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { ratio, summarize } from '../harness/stats'
import { ensureUpstream, UPSTREAM } from '../harness/upstream'

const TITLE = 'in-process cold start against upstream'
const BASELINE = 'upstream\'s published packages (`@deepseek-ai/dsh-fs-local`, `dsh-tools`, `dsh-tool-fs` 0.1.0-rc.8 on `@deepseek-ai/cordis` 4.0.1), booted the same way in a fresh `node`'
const TARGET = 'report the ratio to upstream'
const LOADED = ['fs', 'fs-local', 'fs-policy', 'tools', 'tool-fs']

const url = (path: string) => JSON.stringify(pathToFileURL(path).href)

/**
 * A fresh `node` that imports a library stack (built packages, as a user installs them), boots it
 * in one Cordis context at `cwd` and reads a small file through the `read` tool. It prints when,
 * since the process started, the imports were done, the stack was up and the first read returned.
 */
function oursChild(): string {
  const lib = (name: string) => url(join(REPO, 'packages', name, 'lib/index.js'))
  return `const { Context } = await import(${url(join(REPO, 'node_modules/cordis/lib/index.js'))})
const [fsLocal, tools, toolFs, policy] = await Promise.all([${['fs-local', 'tools', 'tool-fs', 'fs-policy'].map(lib).join(', ')}].map((m) => import(m)))
const imported = performance.now()
const ctx = new Context()
await ctx.plugin(fsLocal.default, { cwd: process.cwd(), root: process.cwd() })
await ctx.plugin(tools.default)
await ctx.plugin(toolFs.default, {})
await ctx.plugin(policy.default)
const booted = performance.now()
const result = await ctx.tools.execute({ name: 'read', arguments: { file_path: 'small.txt' }, agent: { session: {} } })
if (result.isError) throw new Error(JSON.stringify(result))
console.log(JSON.stringify({ imported, booted, read: performance.now() }))
process.exit(0)
`
}

function upstreamChild(): string {
  const lib = (name: string) => url(join(UPSTREAM, 'node_modules/@deepseek-ai', name, 'lib/index.js'))
  return `const { Context } = await import(${lib('cordis')})
const [prompt, tools, fsLocal, toolFs] = await Promise.all([${['dsh-system-prompt', 'dsh-tools', 'dsh-fs-local', 'dsh-tool-fs'].map(lib).join(', ')}].map((m) => import(m)))
const imported = performance.now()
const ctx = new Context()
await ctx.plugin(prompt.default)
await ctx.plugin(tools.default)
await ctx.plugin(fsLocal.default, { cwd: process.cwd() })
await ctx.plugin(toolFs)
const booted = performance.now()
const result = await ctx.tools.execute({ callId: 'c1', name: 'read', arguments: { file_path: 'small.txt' }, signal: new AbortController().signal })
if (result.isError) throw new Error(JSON.stringify(result))
console.log(JSON.stringify({ imported, booted, read: performance.now() }))
process.exit(0)
`
}

interface Marks {
  imported: number
  booted: number
  read: number
}

export async function runB12(scratch: Scratch): Promise<CaseResult> {
  const build = buildState(LOADED)
  if (build.missing.length > 0) return notMeasured('B12', TITLE, BASELINE, `${build.missing.join(', ')} not built (run \`pnpm build\` first)`, TARGET)
  const missing = await ensureUpstream()
  if (missing !== undefined) return notMeasured('B12', TITLE, BASELINE, missing, TARGET)
  const dir = await scratch.dir('b12')
  await writeFile(join(dir, 'small.txt'), 'one\ntwo\nthree\n')
  const scripts = { ours: join(dir, 'ours.mjs'), upstream: join(dir, 'upstream.mjs') }
  await writeFile(scripts.ours, oursChild())
  await writeFile(scripts.upstream, upstreamChild())
  const marks: Record<string, Marks[]> = { ours: [], upstream: [] }
  const run = (name: 'ours' | 'upstream') => async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [scripts[name]], { cwd: dir })
    marks[name]!.push(JSON.parse(stdout.trim().split('\n').at(-1)!) as Marks)
  }
  const { samples } = await interleave([{ name: 'ours', run: run('ours') }, { name: 'upstream', run: run('upstream') }],
    { rounds: config.b12.rounds, warmup: config.b12.warmup, rotate: true })
  // The first `warmup` children of each side only warm the disk cache.
  const inProcess = (name: string, pick: (m: Marks) => number) => summarize(marks[name]!.slice(config.b12.warmup).map(pick))
  const rows: string[][] = []
  const phases: Array<[string, (m: Marks) => number]> = [
    ['imports done', (m) => m.imported],
    ['stack booted', (m) => m.booted],
    ['first `read` returned (the figure)', (m) => m.read],
  ]
  for (const [phase, pick] of phases) {
    const ours = inProcess('ours', pick)
    const theirs = inProcess('upstream', pick)
    rows.push([phase, fmtMs(ours, 1), fmtMs(theirs, 1), fmtRatio(ratio(ours, theirs))])
  }
  const ours = inProcess('ours', (m) => m.read)
  const theirs = inProcess('upstream', (m) => m.read)
  const wallOurs = summarize(samples.ours!)
  const wallTheirs = summarize(samples.upstream!)
  rows.push(['process wall time (spawn to exit)', fmtMs(wallOurs, 1), fmtMs(wallTheirs, 1), fmtRatio(ratio(wallOurs, wallTheirs))])
  return {
    id: 'B12', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `Milliseconds since the child process started (\`performance.now()\`), ${ours.n} children each, alternating. Ours: dsh-fs-local, dsh-tools, dsh-tool-fs and dsh-fs-policy from their built \`lib/\`; upstream: its system prompt, tool runtime, dsh-fs-local and dsh-tool-fs from \`bench/upstream\` (it publishes no policy).`,
      header: ['phase', 'ours', 'upstream', 'ours ÷ upstream'],
      rows,
    }],
    verdicts: [{ target: TARGET, measured: `${fmtRatio(ratio(ours, theirs))} (${ours.median.toFixed(1)} vs ${theirs.median.toFixed(1)} ms to the first read)`, met: null }],
    notes: build.stale.length > 0 ? [`The built lib/ of ${build.stale.join(', ')} was older than its sources when this ran: \`pnpm build\` before \`pnpm bench\`.`] : [],
  }
}
