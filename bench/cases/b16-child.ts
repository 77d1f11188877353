// Child process of B16: one read of an image or a PDF after a warmup read (which loads sharp or
// pdf.js), in a process of its own so that its peak RSS is the read's (plus the runtime's).
// Prints one JSON line: the timed read's milliseconds and the peak RSS.
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { now } from '../harness/clock'
import { expectOk, toolStack } from '../harness/tool-stack'

/** VmHWM: the peak resident set size of this process so far, in bytes. */
function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return match ? Number(match[1]) * 1024 : process.resourceUsage().maxRSS * 1024
}

const [file, pages] = process.argv.slice(2)
// Limits wide enough for the inputs: the image is downscaled by its side, the PDF read whole.
const stack = await toolStack(dirname(file!), { policy: true, toolFs: { readMedia: true, readMediaMaxBytes: 512 * 1024 * 1024, readMaxBytes: 64 * 1024 * 1024 } })
const args = pages === undefined ? { file_path: file! } : { file_path: file!, pages }
const afterBoot = peakRss()
expectOk(await stack.call('read', args), 'warmup read')
const start = now()
const result = expectOk(await stack.call('read', args), 'timed read')
const ms = now() - start
await stack.dispose()
process.stdout.write(`${JSON.stringify({ ms, afterBoot, peak: peakRss(), text: result.content[0]!.text.slice(0, 300) })}\n`)
