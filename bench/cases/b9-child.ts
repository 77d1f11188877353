// Child process of B8: the discovery tools in a process of their own, so that the peak RSS is
// theirs (plus the runtime). Prints one JSON line: per-round milliseconds and the peak RSS.
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { expectOk, toolStack } from '../harness/tool-stack'

function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return match ? Number(match[1]) * 1024 : process.resourceUsage().maxRSS * 1024
}

const [dir, tool, argsJson, rounds] = process.argv.slice(2)
const stack = await toolStack(dir!, { policy: true })
const args = JSON.parse(argsJson!) as Record<string, unknown>
const afterBoot = peakRss()
// Warm: the first call fills the page cache and the JIT; it is not timed.
let text = expectOk(await stack.call(tool!, args), tool!).content.map((part) => part.text).join('')
const ms: number[] = []
for (let i = 0; i < Number(rounds); i++) {
  const start = performance.now()
  text = expectOk(await stack.call(tool!, args), tool!).content.map((part) => part.text).join('')
  ms.push(performance.now() - start)
}
const peak = peakRss()
await stack.dispose()
process.stdout.write(`${JSON.stringify({ ms, afterBoot, peak, firstLine: text.split('\n')[0] })}\n`)
