import { existsSync, readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'
import { StdioClientTransport } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'
import { buildState } from '../harness/build-state'
import { type CaseResult, fmtRatio, notMeasured } from '../harness/case'
import { config } from '../harness/config'
import { interleave } from '../harness/interleave'
import { REPO } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { percentile, summarize } from '../harness/stats'

const TITLE = 'Cold start over stdio'
const FILESYSTEM_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem')
const BASELINE = 'the official `@modelcontextprotocol/server-filesystem` (root devDependency, pinned), its installed bin run by `node` on the same directory'
const TARGET = 'spawn → first `tools/list` answer: median and p90 ≤ 1.00× server-filesystem'
const BARE = join(REPO, 'bench/cases/b10-bare-server.mjs')
const BARE_TARGET = 'spawn → first `tools/list` answer: median ≤ 1.50× a bare `node` that answers the two requests itself (issue 24)'
const LOADED = ['fs', 'fs-local', 'fs-policy', 'tools', 'tool-fs', 'tool-str-replace-editor', 'mcp', 'cli']

/**
 * What an MCP host waits for before its first model request (Codex does not wait at all): the
 * time from spawning the server to the answer of the first `tools/list`, initialize included.
 * Both servers are started the same way, `node <installed bin>`, never through npx, by the
 * official SDK client, one fresh process per round, alternately.
 */
export async function runB10(scratch: Scratch): Promise<CaseResult> {
  const build = buildState(LOADED)
  if (build.missing.length > 0) {
    return notMeasured('B10', TITLE, BASELINE, `\`dsh\` runs the built packages and ${build.missing.join(', ')} are not built (run \`pnpm build\` first)`, TARGET)
  }
  if (!existsSync(join(FILESYSTEM_SERVER, 'package.json'))) {
    return notMeasured('B10', TITLE, BASELINE, '`@modelcontextprotocol/server-filesystem` is not installed (run `pnpm install` at the root)', TARGET)
  }
  const dir = await scratch.dir('b10')
  await writeFile(join(dir, 'a.txt'), 'one\n')
  const baseline = JSON.parse(readFileSync(join(FILESYSTEM_SERVER, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> }
  const servers = {
    dsh: [join(REPO, 'packages/cli/bin/dsh.js'), 'start'],
    'server-filesystem': [join(FILESYSTEM_SERVER, Object.values(baseline.bin)[0]!), dir],
    bare: [BARE],
  }
  const tools: Record<string, number> = {}
  // The previous server exits between rounds, outside the clock, so it never competes for the CPU.
  let closing: Promise<void> = Promise.resolve()
  const { samples } = await interleave(Object.entries(servers).map(([name, args]) => ({
    name,
    prepare: () => closing,
    run: async () => {
      const client = new Client({ name: 'dsh-bench', version: '0.0.0' })
      await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'ignore' }))
      tools[name] = (await client.listTools()).tools.length
      closing = client.close()
    },
  })), { rounds: config.b10.rounds, warmup: config.b10.warmup, rotate: true })

  const p90 = (series: number[]) => percentile([...series].sort((a, b) => a - b), 90)
  const dsh = summarize(samples.dsh!)
  const fs = summarize(samples['server-filesystem']!)
  const bare = summarize(samples.bare!)
  const bareP90 = p90(samples.bare!)
  const bareRatio = dsh.median / bare.median
  const dshP90 = p90(samples.dsh!)
  const fsP90 = p90(samples['server-filesystem']!)
  const ms = (v: number) => `${v.toFixed(0)} ms`
  const medianRatio = dsh.median / fs.median
  const p90Ratio = dshP90 / fsP90
  return {
    id: 'B10', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `${dsh.n} cold starts each, interleaved (rotating who goes first); \`dsh start\` with the default \`cordis.yml\` (${tools.dsh} tools, the first answers from its build manifest while the plugins load), server-filesystem ${baseline.version} (${tools['server-filesystem']} tools), a bare \`node\` answering the two requests (${tools.bare} tools); time from spawn to the \`tools/list\` answer.`,
      header: ['server', 'median', 'p90', 'min', 'max'],
      rows: [
        ['`node packages/cli/bin/dsh.js start`', ms(dsh.median), ms(dshP90), ms(dsh.min), ms(dsh.max)],
        ['`node …/server-filesystem/dist/index.js <dir>`', ms(fs.median), ms(fsP90), ms(fs.min), ms(fs.max)],
        ['`node bench/cases/b10-bare-server.mjs` (answers the two requests, nothing else)', ms(bare.median), ms(bareP90), ms(bare.min), ms(bare.max)],
        ['dsh ÷ server-filesystem', fmtRatio(medianRatio), fmtRatio(p90Ratio), '', ''],
        ['dsh ÷ bare node', fmtRatio(bareRatio), fmtRatio(dshP90 / bareP90), '', ''],
      ],
    }],
    verdicts: [{
      target: TARGET,
      measured: `median ${fmtRatio(medianRatio)} (${ms(dsh.median)} vs ${ms(fs.median)}), p90 ${fmtRatio(p90Ratio)} (${ms(dshP90)} vs ${ms(fsP90)})`,
      met: medianRatio <= 1 && p90Ratio <= 1,
    }, {
      target: BARE_TARGET,
      measured: `median ${fmtRatio(bareRatio)} (${ms(dsh.median)} vs ${ms(bare.median)}), p90 ${fmtRatio(dshP90 / bareP90)}`,
      met: bareRatio <= 1.5,
    }],
    notes: build.stale.length > 0 ? [`The built lib/ of ${build.stale.join(', ')} was older than its sources when this ran: \`pnpm build\` before \`pnpm bench\` to measure the current code.`] : [],
  }
}
