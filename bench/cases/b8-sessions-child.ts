// Child process of B8: the default stack served over Streamable HTTP, nothing else, so that its
// heap is the server's. Prints `{ url }` once listening, then one JSON line of memory figures per
// `measure` line on stdin (after full collections, so that only live objects count).
import { Context } from 'cordis'
import { createInterface } from 'node:readline'
import { LocalFileSystem } from '../../packages/fs-local/src/index'
import * as policy from '../../packages/fs-policy/src/index'
import * as mcp from '../../packages/mcp/src/index'
import * as toolFs from '../../packages/tool-fs/src/index'
import * as strReplaceEditor from '../../packages/tool-str-replace-editor/src/index'
import * as tools from '../../packages/tools/src/index'

const [dir, token, maxSessions] = process.argv.slice(2)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc')

const ctx = new Context()
await ctx.plugin(LocalFileSystem, { cwd: dir!, root: dir! })
await ctx.plugin(policy.default)
await ctx.plugin(tools.default)
await ctx.plugin(toolFs.default, {})
await ctx.plugin(strReplaceEditor.default, {})
let closed = 0
ctx.on('mcp/session-closed', () => { closed++ })
ctx.on('mcp/listening', (url) => process.stdout.write(`${JSON.stringify({ url })}\n`))
await ctx.plugin(mcp.default, { transport: 'http', port: 0, token: token!, ...(maxSessions ? { maxSessions: Number(maxSessions) } : {}) })

for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'measure') continue
  // Several rounds with turns of the event loop between: closures freed by one round's finalizers go in the next.
  for (let round = 0; round < 4; round++) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
  }
  const { heapUsed, rss, external } = process.memoryUsage()
  process.stdout.write(`${JSON.stringify({ heapUsed, rss, external, closed })}\n`)
}
process.exit(0)
