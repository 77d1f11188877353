// Child process of B1: runs the read windows in a process of its own, so that its peak RSS is the
// read tool's (plus the runtime) and not the harness's. Prints one JSON line.
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { expectOk, toolStack } from '../harness/tool-stack'

/** VmHWM: the peak resident set size of this process so far, in bytes. */
function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return match ? Number(match[1]) * 1024 : process.resourceUsage().maxRSS * 1024
}

const [file, ...offsets] = process.argv.slice(2)
const stack = await toolStack(dirname(file!), { policy: true })
const afterBoot = peakRss()
for (const offset of offsets) expectOk(await stack.call('read', { file_path: file!, offset: Number(offset) }), `read at ${offset}`)
const afterReads = peakRss()
await stack.dispose()
process.stdout.write(`${JSON.stringify({ afterBoot, afterReads })}\n`)
