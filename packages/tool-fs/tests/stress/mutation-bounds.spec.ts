import { FS_MAX_EDITS } from '@deepseek-ai/dsh-fs/kit'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, expect, it } from 'vitest'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
import { runSeed, seededRandom } from '../../../fs-local/tests/stress/random'
import { rootedStack, type RootedStack, textOf } from './stack'

/*
 * Issue 25, items 3 and 5: a multi_edit of under 2 KB whose steps multiply the text (once 500 MB
 * written, 4.3 GB RSS, 48.6 s of a frozen loop), and more edits than one call takes. Seeded
 * variations of the growing request through the tools: each must be refused with the file
 * unchanged, and the process's peak RSS (getrusage's high-water mark) must stay far below the
 * issue's. Times and memory are recorded, not asserted tightly.
 */

const REQUESTS = sized(2, 12)
/** Peak RSS growth over the whole run that would mean a result was built past its bounds. */
const RSS_BOUND_MB = 1_024

const seed = runSeed()
console.info(`mutation bounds stress: seed ${seed} (replay with DSH_SEED=${seed})`)

let s: RootedStack
afterAll(async () => {
  await s?.dispose()
})

it(`refuses ${REQUESTS} growing multi_edits and one of ${FS_MAX_EDITS + 1} edits with the file unchanged, the peak RSS growing less than ${RSS_BOUND_MB} MB`, async () => {
  s = await rootedStack({ policy: true })
  const random = seededRandom(seed)
  const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1))
  const peakMb = () => process.resourceUsage().maxRSS / 1024
  const peakBefore = peakMb()
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  const rows: string[][] = []
  let refused = 0
  let maxDelayMs = 0
  let largestRequest = 0

  const attempt = async (name: string, text: string, edits: unknown[]) => {
    await s.put(name, text)
    await s.call('read', { file_path: name })
    const request = Buffer.byteLength(JSON.stringify({ file_path: name, edits }))
    largestRequest = Math.max(largestRequest, request)
    histogram.reset()
    histogram.enable()
    const started = performance.now()
    const result = await s.call('multi_edit', { file_path: name, edits })
    const ms = Math.round(performance.now() - started)
    // The sampling timer notes a blocked loop when it next fires: let it fire before sampling stops.
    await new Promise((resolve) => setTimeout(resolve, 20))
    histogram.disable()
    const delay = Math.round(histogram.max / 1e6)
    maxDelayMs = Math.max(maxDelayMs, delay)
    expect(result.error?.code, textOf(result).slice(0, 300)).toBe('FS_TOO_LARGE')
    expect((await s.bytes(name))?.toString(), 'the file is unchanged').toBe(text)
    refused++
    const step = /edits\[(\d+)\]/.exec(textOf(result))?.[1]
    rows.push([name, String(request), step === undefined ? 'the edit count' : `edits[${step}]`, String(ms), String(delay)])
  }

  for (let i = 0; i < REQUESTS; i++) {
    const length = int(200, 2_000)
    const factor = int(2, 3)
    const steps = int(20, 40)
    const edits = Array.from({ length: steps }, () => ({ old_string: 'a', new_string: 'a'.repeat(factor), replace_all: true }))
    await attempt(`grow-${i}-x${factor}-${length}.txt`, 'a'.repeat(length), edits)
  }
  const many = Array.from({ length: FS_MAX_EDITS + 1 }, (_, i) => `<${i}>\n`).join('')
  await attempt('many.txt', many, Array.from({ length: FS_MAX_EDITS + 1 }, (_, i) => ({ old_string: `<${i}>`, new_string: `[${i}]` })))

  const growthMb = Math.round(peakMb() - peakBefore)
  console.info(`mutation bounds stress: ${refused} refused, peak RSS +${growthMb} MB, loop delay max ${maxDelayMs} ms`)
  expect(growthMb).toBeLessThan(RSS_BOUND_MB)

  await recordSection({
    id: '3-hostile-mutations',
    title: 'Mutations past their bounds (through the tools)',
    method: `Seeded multi_edit requests of up to ${largestRequest} bytes whose 20 to 40 steps each double or triple a text of `
      + `200 to 2,000 bytes (the shape that once wrote 500 MB at 4.3 GB RSS), and one request of ${FS_MAX_EDITS + 1} edits, `
      + 'on a LocalFileSystem with `root` through the tools and the policy. Each must be refused with its file byte for byte '
      + 'unchanged; the process\'s peak RSS (getrusage) is compared before and after, and the event loop sampled during each call.',
    facts: [
      ['requests', refused],
      ['files changed', 0],
      ['peak RSS growth over the run (MB)', growthMb],
      ['refused FS_TOO_LARGE, file unchanged', refused],
      ['largest event-loop delay during one call (ms)', maxDelayMs],
      ['seed', seed],
    ],
    table: [['file', 'request bytes', 'refused at', 'call (ms)', 'max loop delay (ms)'], ...rows],
  })
}, STRESS ? 600_000 : 120_000)
