import { execFile, spawn } from 'node:child_process'
import { utimes } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { bundle } from '../harness/bundle'
import { type CaseResult, fmtBytes, fmtMs, fmtRatio, type Verdict } from '../harness/case'
import { config } from '../harness/config'
import { interleave } from '../harness/interleave'
import { BENCH } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { ratio, summarize } from '../harness/stats'
import { expectOk, toolStack } from '../harness/tool-stack'
import { ensureUpstream, expectUpstreamOk, upstreamStack } from '../harness/upstream'
import { byteScan, streamDecode } from '../inputs/scan'
import { generateTextFile } from '../inputs/text'

const TITLE = 'read window'
const BASELINE = 'GNU `sed -n \'A,Bp;Bq\'` printing the same lines A–B of the same file (a process spawn per call, as a shell tool would)'
const RATIO_LIMIT = 1.0
/** The next page of a version already read: resumed from the line index, not scanned again. */
const NEXT_LIMIT = 0.1
const HEAD_LIMIT_MS = 10
const RSS_LIMIT = 100 * 1024 * 1024

/** Runs sed to completion and returns its output size (so the call cannot be optimised away). */
function sed(file: string, from: number, to: number): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn('sed', ['-n', `${from},${to}p;${to}q`, file], { stdio: ['ignore', 'pipe', 'inherit'] })
    let bytes = 0
    child.stdout.on('data', (chunk: Buffer) => { bytes += chunk.length })
    child.once('error', fail)
    child.once('close', (code) => (code === 0 ? done(bytes) : fail(new Error(`sed exited ${code}`))))
  })
}

/** The numbered lines a read returned: `     N\ttext`. */
function shownRange(text: string): { from: number; to: number } {
  const numbers = [...text.matchAll(/^\s*(\d+)\t/gm)].map((m) => Number(m[1]))
  return { from: numbers[0]!, to: numbers.at(-1)! }
}

export async function runB1(scratch: Scratch): Promise<CaseResult> {
  const dir = await scratch.dir('b1')
  const started = Date.now()
  const input = await generateTextFile(join(dir, 'big.txt'), config.b1.fileBytes)
  const generated = (Date.now() - started) / 1000
  const windows = [
    ['head', 1],
    ['middle', Math.floor(input.lines / 2)],
    ['near the end', input.lines - 1000],
  ] as const
  const stack = await toolStack(dir, { policy: true })
  const upstreamMissing = await ensureUpstream()
  const upstream = upstreamMissing === undefined ? await upstreamStack(dir) : undefined
  const rows: string[][] = []
  const verdicts: Verdict[] = []
  try {
    for (const [label, offset] of windows) {
      const first = expectOk(await stack.call('read', { file_path: 'big.txt', offset }), `read ${label}`)
      const { from, to } = shownRange(first.content[0]!.text)
      const rounds = label === 'head' ? config.b1.rounds : config.b1.farRounds
      // Far windows also time two prototypes over the same prefix, to show where the time goes.
      const probes = label === 'head' ? [] : [
        { name: 'bytes', run: () => byteScan(input.path, offset) },
        ...(label === 'middle' ? [{ name: 'decode', run: () => streamDecode(input.path, offset) }] : []),
      ]
      // A new version before every first read (the mtime moves, the bytes stay in the page cache):
      // each one is the first read of its version, so the line index cannot help it.
      const newVersion = (round: number) => utimes(input.path, new Date(), new Date(1e12 + round * 1000))
      const next = Number(/offset=(\d+)/.exec(first.content[0]!.text)?.[1] ?? 0)
      const paging = label === 'head' || next === 0 ? [] : [{
        name: 'next',
        // A new version, then its first window (untimed); timed: the window that read pointed to.
        prepare: async (round: number) => {
          await newVersion(round)
          expectOk(await stack.call('read', { file_path: 'big.txt', offset }), 'read before the next window')
        },
        run: async () => expectOk(await stack.call('read', { file_path: 'big.txt', offset: next }), 'next window'),
      }]
      const { samples } = await interleave([
        { name: 'read', prepare: newVersion, run: async () => expectOk(await stack.call('read', { file_path: 'big.txt', offset }), 'read') },
        { name: 'sed', run: () => sed(input.path, from, to) },
        ...probes,
        ...paging,
      ], { rounds, warmup: config.b1.warmup })
      // Upstream scans to the end of the file on every read: a few rounds of its own, against ours.
      const versus = upstream === undefined ? undefined : (await interleave([
        { name: 'read', prepare: newVersion, run: async () => expectOk(await stack.call('read', { file_path: 'big.txt', offset }), 'read') },
        { name: 'upstream', prepare: newVersion, run: async () => expectUpstreamOk(await upstream.call('read', { file_path: 'big.txt', offset }), 'read') },
      ], { rounds: config.b1.upstreamRounds, warmup: 1 })).samples
      const read = summarize(samples.read!)
      const base = summarize(samples.sed!)
      const r = ratio(read, base)
      const probe = (name: string) => {
        const s = samples[name]
        return s ? `${fmtMs(summarize(s))}, ${fmtRatio(ratio(summarize(s), base))}` : '—'
      }
      const up = versus ? summarize(versus.upstream!) : undefined
      const ours = versus ? summarize(versus.read!) : undefined
      rows.push([label, `${from}–${to}`, String(read.n), fmtMs(read), fmtMs(base), fmtRatio(r), probe('next'), up && ours ? `${fmtMs(up)} (${up.n} rounds); ours ÷ upstream ${fmtRatio(ratio(ours, up))}` : '—', probe('decode'), probe('bytes')])
      if (up && ours) verdicts.push({ target: `${label} window: ratio to upstream's \`read\` (report)`, measured: `${fmtRatio(ratio(ours, up))} (${ours.median.toFixed(1)} vs ${up.median.toFixed(1)} ms)`, met: null })
      verdicts.push({ target: `${label} window, first read of the version: ≤ ${RATIO_LIMIT}× sed`, measured: fmtRatio(r), met: r <= RATIO_LIMIT })
      if (samples.next) {
        const n = ratio(summarize(samples.next), base)
        verdicts.push({ target: `${label}: the next window (offset=${next}) of the same version ≤ ${NEXT_LIMIT}× sed`, measured: fmtRatio(n), met: n <= NEXT_LIMIT })
      }
      if (label === 'head') {
        verdicts.push({ target: `head window ≤ ${HEAD_LIMIT_MS} ms`, measured: `${read.median.toFixed(2)} ms`, met: read.median <= HEAD_LIMIT_MS })
      }
    }
  } finally {
    await stack.dispose()
    await upstream?.dispose()
  }
  if (upstreamMissing !== undefined) verdicts.push({ target: 'ratio to upstream', measured: `not measured: ${upstreamMissing}`, met: null })
  const rss = await peakRssOfReads(input.path, windows.map(([, offset]) => offset))
  verdicts.push({ target: 'peak RSS ≤ 100 MB', measured: `${(rss.afterReads / 1e6).toFixed(1)} MB`, met: rss.afterReads <= RSS_LIMIT })
  return {
    id: 'B1', title: TITLE, baseline: BASELINE,
    tables: [
      {
        caption: `File: ${fmtBytes(input.bytes)}, ${input.lines.toLocaleString('en')} lines (generated in ${generated.toFixed(1)} s, in the page cache while measured). \`read\` through \`ctx.tools\` with the policy loaded, default limits (2000 lines, 50 KiB).`,
        header: ['window', 'lines shown', 'rounds', '`read` tool (first read of a new version)', 'sed', 'read ÷ sed', 'next window of the same version (`offset=` from the previous read), ÷ sed of the first window', 'upstream `read` (dsh-tool-fs 0.1.0-rc.8, same offset; its own interleave with ours)', 'prototype: streaming decode of the prefix, ÷ sed', 'prototype: byte scan of the prefix, ÷ sed'],
        rows,
      },
      {
        caption: 'Peak RSS (VmHWM) of a separate child process on bare `node` (the child script and the workspace sources bundled with esbuild, no tsx) that boots the same stack and reads the three windows once each.',
        header: ['after boot (Node + stack)', 'after the three reads', 'growth'],
        rows: [[fmtMb(rss.afterBoot), fmtMb(rss.afterReads), fmtMb(rss.afterReads - rss.afterBoot)]],
      },
    ],
    verdicts,
    notes: notesFor(verdicts),
  }
}

/** How the read path works, and what a miss of the first-window ratio points at. */
function notesFor(verdicts: Verdict[]): string[] {
  const notes = [
    'Prototype columns are not product code (`bench/inputs/scan.ts`): "streaming decode" reads the prefix before the window in 64 KiB chunks through a streaming `TextDecoder`; "byte scan" finds the window start in the raw bytes (1 MiB reads, line feeds counted with `Buffer.indexOf`, skipped bytes validated with `buffer.isUtf8`).',
    'How `read` does it: the lines before the window come through `FileSystem.streamBytesFrom` and are skipped as bytes (`skipLinesIndexed` in dsh-tool-text: line feeds found with `indexOf`, the bytes validated by `Utf8StreamDecoder.skip`, never decoded). The scan leaves line starts behind in a per-version line index (`LineIndex`: a checkpoint every 1000 lines, at most 4096 per file, 32 files), so a later window of the same version starts at the nearest checkpoint at or before it and scans only the lines in between.',
    'Every "first read" round first moves the file\'s mtime (untimed): the version changes, the index has nothing for it, and the bytes stay in the page cache, as they do for sed.',
  ]
  if (verdicts.some((v) => v.met === false && v.target.includes('first read'))) {
    notes.push('A first-window ratio above the target with the byte-scan column below it means the cost is in the tool layer (the per-line `indexOf` loop and the validation in `Utf8StreamDecoder.skip`), not in the reads: compare the two columns of the same row.')
  }
  return notes
}

function fmtMb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

/** Runs the windows in a bundled child on bare `node`, as a built package would run. */
async function peakRssOfReads(file: string, offsets: number[]): Promise<{ afterBoot: number; afterReads: number }> {
  const script = join(dirname(file), 'rss-child.mjs')
  await bundle(join(BENCH, 'cases/b1-rss-child.ts'), script)
  const { stdout } = await promisify(execFile)(process.execPath, [script, file, ...offsets.map(String)])
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { afterBoot: number; afterReads: number }
}
