import { execFile, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { minimalPdf } from '../../packages/test-kit/src/media'
import { type CaseResult, fix, fmtBytes, fmtRatio, notMeasured } from '../harness/case'
import { now } from '../harness/clock'
import { config } from '../harness/config'
import { bundle } from '../harness/bundle'
import { BENCH, REPO } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { median } from '../harness/stats'

const TITLE = 'images and PDFs from read'
const BASELINE = 'ImageMagick `convert -resize` (Debian package `imagemagick`) and poppler `pdftotext` (Debian package `poppler-utils`) on the same files, '
  + 'each a process per round, interleaved with dsh'
const run = promisify(execFile)
// sharp is tool-text's dependency (the bench has no package of its own): the inputs are made with it from there.
const sharp = createRequire(join(REPO, 'packages/tool-text/package.json'))('sharp') as typeof import('../../packages/tool-text/node_modules/sharp').default

interface Round { ms: number; peak: number }

/**
 * The child, bundled for bare `node` (no tsx loader in its memory). sharp and pdf.js stay imports,
 * so it is written under tool-text's node_modules, from where they resolve (nothing there is committed).
 */
const CHILD = join(REPO, 'packages/tool-text/node_modules/.cache/dsh-bench/b16-child.mjs')

/** One dsh read in a child (after a warmup read there): its time, and the child's peak RSS over its RSS after boot. */
async function dshRead(file: string, pages?: string): Promise<Round> {
  const { stdout } = await run(process.execPath, [CHILD, file, ...(pages === undefined ? [] : [pages])], { maxBuffer: 1 << 20 })
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { ms: number; afterBoot: number; peak: number }
  return { ms: out.ms, peak: out.peak - out.afterBoot }
}

/** A baseline command under GNU time: wall milliseconds (spawn included) and its max RSS. */
async function baseline(command: string, args: string[]): Promise<Round> {
  const start = now()
  const { stderr } = await run('/usr/bin/time', ['-f', 'maxrss=%M', command, ...args], { maxBuffer: 64 << 20, timeout: 300_000 })
  const ms = now() - start
  return { ms, peak: Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? 0) * 1024 }
}

const missing = (binary: string) => spawnSync('sh', ['-c', `command -v ${binary}`]).status !== 0

/**
 * ImageMagick's own `convert`: Debian's `/usr/bin/convert` when it is there, since a machine may put
 * a wrapper of its own first on the PATH (this one has a Python script in /usr/local/bin), whose
 * start-up would be timed as the baseline's.
 */
const CONVERT = spawnSync('sh', ['-c', 'test -x /usr/bin/convert']).status === 0 ? '/usr/bin/convert' : 'convert'

/** A photo-like JPEG: a colour field with Gaussian noise, so it neither compresses to nothing nor is pure noise. */
async function photo(path: string, width: number, height: number): Promise<number> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: { r: 120, g: 140, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 12 } } })
    .jpeg({ quality: 85 }).toBuffer()
  await writeFile(path, bytes)
  return bytes.length
}

async function rounds(subject: () => Promise<Round>, other: () => Promise<Round>, count: number): Promise<{ dsh: Round[]; base: Round[] }> {
  const dsh: Round[] = []
  const base: Round[] = []
  for (let round = 0; round < count; round++) {
    dsh.push(await subject())
    base.push(await other())
  }
  return { dsh, base }
}

function row(what: string, unit: number, unitName: string, series: { dsh: Round[]; base: Round[] }): string[] {
  const dshMs = median(series.dsh.map((r) => r.ms)) / unit
  const baseMs = median(series.base.map((r) => r.ms)) / unit
  const peak = (list: Round[]) => fmtBytes(Math.max(...list.map((r) => r.peak)))
  return [what, `${fix(dshMs, 2)} ms/${unitName}`, `${fix(baseMs, 2)} ms/${unitName}`, fmtRatio(dshMs / baseMs), peak(series.dsh), peak(series.base)]
}

export async function runB16(scratch: Scratch): Promise<CaseResult> {
  const absent = ['convert', 'pdftotext', '/usr/bin/time'].filter(missing)
  if (absent.length > 0) return notMeasured('B16', TITLE, BASELINE, `${absent.join(', ')} not installed (Debian packages imagemagick, poppler-utils, time)`, 'all targets of this case')
  const dir = await scratch.dir('b16')
  await bundle(join(BENCH, 'cases/b16-child.ts'), CHILD, ['sharp', 'pdfjs-dist'])
  const { width, height, pages } = config.b16
  const image = join(dir, 'photo.jpg')
  const imageBytes = await photo(image, width, height)
  const pdf = join(dir, 'pages.pdf')
  const line = 'The quick brown fox jumps over the lazy dog, and the report continues on the next line.'
  await writeFile(pdf, minimalPdf(Array.from({ length: pages }, (_, page) => Array.from({ length: 45 }, (_, n) => `${page + 1}.${n + 1} ${line}`))))
  const megapixels = (width * height) / 1e6
  const imageSeries = await rounds(() => dshRead(image), () => baseline(CONVERT, [image, '-resize', '8000x8000>', '-quality', '85', join(dir, 'out.jpg')]), config.b16.rounds)
  const pdfSeries = await rounds(() => dshRead(pdf, `1-${pages}`), () => baseline('pdftotext', ['-f', '1', '-l', String(pages), pdf, join(dir, 'out.txt')]), config.b16.rounds)
  const table = {
    header: ['work', 'dsh read', 'baseline', 'ratio', 'dsh peak RSS (over its boot)', 'baseline peak RSS'],
    rows: [
      row(`JPEG ${width}×${height} (${fix(megapixels, 1)} MP, ${fmtBytes(imageBytes)}) downscaled to fit 8,000 px and 5 MiB`, megapixels, 'MP', imageSeries),
      row(`PDF text of ${pages} pages (45 lines each)`, pages, 'page', pdfSeries),
    ],
  }
  return {
    id: 'B16',
    title: TITLE,
    baseline: BASELINE,
    tables: [table],
    verdicts: [
      { target: 'image read and downscale time per megapixel, against convert -resize', measured: table.rows[0]!.slice(1, 4).join(' vs ').replace(/ vs (?=[\d.]+×$)/, ', ratio '), met: null },
      { target: 'PDF text time per page, against pdftotext', measured: table.rows[1]!.slice(1, 4).join(' vs ').replace(/ vs (?=[\d.]+×$)/, ', ratio '), met: null },
    ],
    notes: [
      'dsh is timed inside its process (a read after a warmup read that loaded sharp or pdf.js); the baselines are timed around their process, spawn included.',
      'dsh encodes the downscaled JPEG again at a smaller size while it is over 5 MiB; convert resizes once. dsh\'s RSS is its peak over its RSS after boot (sharp or pdf.js loaded, the read\'s buffers).',
    ],
  }
}
