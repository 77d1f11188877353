// Runs tool calls through the assembled stack in a separate process (the permission cases run it
// as an unprivileged user, since root ignores mode bits): `node tool-calls.mjs <dir> <calls JSON>`.
// Prints the results (each with its elapsed time) as one JSON array.
import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import * as policyModule from '@deepseek-ai/dsh-fs-policy'
import * as toolsModule from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import * as toolFsModule from '../../../src/index'

const [dir, json] = process.argv.slice(2) as [string, string]
const calls = JSON.parse(json) as { name: string; arguments: unknown }[]

const ctx = new Context()
await ctx.plugin(LocalFileSystem, { cwd: dir, root: dir })
await ctx.plugin(toolsModule.default ?? toolsModule)
await ctx.plugin(policyModule.default ?? policyModule)
await ctx.plugin(toolFsModule.default ?? toolFsModule)
const session = { cwd: dir }
const results = []
for (const call of calls) {
  const started = performance.now()
  const result = await ctx.tools.execute({ ...call, agent: { session } })
  results.push({ ...result, elapsedMs: performance.now() - started })
}
process.stdout.write(JSON.stringify(results))
process.exit(0)
