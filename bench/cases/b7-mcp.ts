import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'
import { StdioClientTransport } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'
import { buildState } from '../harness/build-state'
import { type CaseResult, fmtBytes, fmtRatio, notMeasured } from '../harness/case'
import { config } from '../harness/config'
import { interleave } from '../harness/interleave'
import { REPO } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { summarize } from '../harness/stats'
import { expectOk, toolStack } from '../harness/tool-stack'
import { textOfSize } from '../inputs/text'

const TITLE = 'MCP over stdio'
const BASELINE = 'the same `read` through `ctx.tools` in process (same stack: fs-local, policy, tools, tool-fs)'
const TARGET = 'report the ratio (p50 and p99)'
const LOADED = ['fs', 'fs-local', 'fs-policy', 'tools', 'tool-fs', 'tool-str-replace-editor', 'mcp', 'cli']

/**
 * `dsh start` with its default config, spawned by the official MCP SDK client over stdio exactly
 * as an MCP host runs it, against the same tool call made in process. Each call is one JSON-RPC
 * round trip through the child's stdin/stdout.
 */
export async function runB7(scratch: Scratch): Promise<CaseResult> {
  const build = buildState(LOADED)
  if (build.missing.length > 0) {
    return notMeasured('B7', TITLE, BASELINE, `\`dsh\` runs the built packages and ${build.missing.join(', ')} are not built (run \`pnpm build\` first)`, TARGET)
  }
  const dir = await scratch.dir('b7')
  const bytes = 4 * 1024
  await writeFile(join(dir, 'small.txt'), textOfSize(bytes, 5))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO, 'packages/cli/bin/dsh.js'), 'start'],
    cwd: dir,
    stderr: 'ignore',
  })
  const client = new Client({ name: 'dsh-bench', version: '0.0.0' })
  await client.connect(transport)
  const stack = await toolStack(dir, { policy: true })
  try {
    const { samples } = await interleave([
      {
        name: 'mcp',
        run: async () => {
          const result = await client.callTool({ name: 'read', arguments: { file_path: 'small.txt' } })
          if (result.isError) throw new Error(`MCP read failed: ${JSON.stringify(result.content)}`)
        },
      },
      { name: 'local', run: async () => expectOk(await stack.call('read', { file_path: 'small.txt' }), 'read') },
    ], { rounds: config.b7.calls, warmup: config.b7.warmup })
    const mcp = summarize(samples.mcp!)
    const local = summarize(samples.local!)
    const p50 = mcp.median / local.median
    const p99 = mcp.p99 / local.p99
    const ms = (v: number) => `${v.toFixed(3)} ms`
    return {
      id: 'B7', title: TITLE, baseline: BASELINE,
      tables: [{
        caption: `\`read\` of a ${fmtBytes(bytes)} file, ${mcp.n} calls each, interleaved; \`dsh start\` with the default \`cordis.yml\`, built packages.`,
        header: ['path', 'p50', 'p99', 'min', 'max'],
        rows: [
          ['MCP SDK client → `dsh start` over stdio', ms(mcp.median), ms(mcp.p99), ms(mcp.min), ms(mcp.max)],
          ['`ctx.tools.execute` in process', ms(local.median), ms(local.p99), ms(local.min), ms(local.max)],
          ['ratio', fmtRatio(p50), fmtRatio(p99), '', ''],
        ],
      }],
      verdicts: [{ target: TARGET, measured: `p50 ${fmtRatio(p50)} (${ms(mcp.median)} vs ${ms(local.median)}), p99 ${fmtRatio(p99)}`, met: null }],
      notes: build.stale.length > 0 ? [`The built lib/ of ${build.stale.join(', ')} was older than its sources when this ran: \`pnpm build\` before \`pnpm bench\` to measure the current code.`] : [],
    }
  } finally {
    await client.close()
    await stack.dispose()
  }
}
