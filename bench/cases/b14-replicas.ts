import type { ChildProcess } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'
import { StreamableHTTPClientTransport } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js'
import { startDsh } from '../../packages/cli/tests/dsh-process'
import { freePort, hasBinary, startHaproxy, startRedis } from '../../packages/test-kit/src/index'
import { buildState } from '../harness/build-state'
import { now } from '../harness/clock'
import { type CaseResult, fix, notMeasured } from '../harness/case'
import { QUICK } from '../harness/config'
import type { Scratch } from '../harness/scratch'
import { summarize } from '../harness/stats'

const TITLE = 'three replicas against one process'
const BASELINE = 'one `dsh start` with the same config (Redis ledger, owner: token), the same clients and calls'
const LOADED = ['fs', 'fs-local', 'fs-policy', 'tools', 'tool-fs', 'mcp', 'cli']
const TOKENS = ['bench-agent-one-0123456789', 'bench-agent-two-0123456789', 'bench-agent-three-012345']
const CLIENTS = 6
const ROUNDS_PER_CLIENT = QUICK ? 10 : 25
const PASSES = QUICK ? 1 : 2

function replicaConfig(dir: string, port: number, ledger: string): string {
  return [
    `- id: fs`, `  name: '@deepseek-ai/dsh-fs-local'`, `  config: { cwd: '${dir}', root: '${dir}' }`,
    `- id: policy`, `  name: '@deepseek-ai/dsh-fs-policy'`, `  config: { ledger: '${ledger}', retryTtlSeconds: 300 }`,
    `- id: tools`, `  name: '@deepseek-ai/dsh-tools'`,
    `- id: tool-fs`, `  name: '@deepseek-ai/dsh-tool-fs'`,
    `- id: mcp`, `  name: '@deepseek-ai/dsh-mcp'`,
    `  config: { transport: http, port: ${port}, owner: token, token: '${TOKENS[0]}', tokens: ['${TOKENS[1]}', '${TOKENS[2]}'] }`,
    ``,
  ].join('\n')
}

/** Six clients of three owners, each reading and editing its own file: milliseconds per call, and the wall time. */
async function work(url: string, dir: string, pass: string): Promise<{ calls: number[]; wallMs: number }> {
  const clients = await Promise.all(Array.from({ length: CLIENTS }, async (_, index) => {
    const client = new Client({ name: 'dsh-bench', version: '0.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[index % TOKENS.length]}` } } }))
    return client
  }))
  const calls: number[] = []
  const timed = async (client: Client, name: string, args: Record<string, unknown>) => {
    const start = now()
    const result = await client.callTool({ name, arguments: args })
    calls.push(now() - start)
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
  }
  const started = now()
  try {
    await Promise.all(clients.map(async (client, index) => {
      const file = `${pass}-${index}.txt`
      await writeFile(join(dir, file), 'END\n')
      for (let round = 0; round < ROUNDS_PER_CLIENT; round++) {
        await timed(client, 'read', { file_path: file })
        await timed(client, 'edit', { file_path: file, old_string: 'END', new_string: `line ${round}\nEND` })
      }
    }))
    return { calls, wallMs: now() - started }
  } finally {
    await Promise.all(clients.map((client) => client.close()))
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM') })
}

export async function runB14(scratch: Scratch): Promise<CaseResult> {
  const { missing, stale } = buildState(LOADED)
  if (missing.length + stale.length > 0) return notMeasured('B14', TITLE, BASELINE, `packages not built or stale (${[...missing, ...stale].join(', ')}): run pnpm build`, 'the cluster against one process')
  if (!hasBinary('redis-server') || !hasBinary('haproxy')) return notMeasured('B14', TITLE, BASELINE, 'redis-server or haproxy is not installed', 'the cluster against one process')
  const dir = await scratch.dir('b14')
  const redis = await startRedis()
  const children: ChildProcess[] = []
  let haproxy: Awaited<ReturnType<typeof startHaproxy>> | undefined
  try {
    const ports = await Promise.all([0, 1, 2].map(() => freePort()))
    for (const [index, port] of ports.entries()) {
      const config = join(dir, `..`, `b14-replica-${index}.yml`)
      await writeFile(config, replicaConfig(dir, port, `${redis.url}/0`))
      children.push((await startDsh(['--config', config], dir, { ...process.env, DSH_MCP_TOKEN: '' }, 30 * 60_000)).child)
    }
    haproxy = await startHaproxy(ports)
    const single = `http://127.0.0.1:${ports[0]}/mcp`
    const cluster = `http://127.0.0.1:${haproxy.port}/mcp`
    const results: Record<'one' | 'three', { calls: number[]; wall: number[] }> = { one: { calls: [], wall: [] }, three: { calls: [], wall: [] } }
    // Warm both paths once, then alternate, so drift of the machine hits both alike.
    await work(single, dir, 'warm-one')
    await work(cluster, dir, 'warm-three')
    for (let pass = 0; pass < PASSES; pass++) {
      for (const [name, url] of [['one', single], ['three', cluster]] as const) {
        const { calls, wallMs } = await work(url, dir, `${name}-${pass}`)
        results[name].calls.push(...calls)
        results[name].wall.push(wallMs)
      }
    }
    const row = (name: 'one' | 'three', label: string) => {
      const s = summarize(results[name].calls)
      const wall = results[name].wall.reduce((a, b) => a + b, 0) / results[name].wall.length
      return [label, String(s.n), `${fix(s.median, 2)} ms`, `${fix(s.p99, 2)} ms`, `${fix(wall, 0)} ms`, `${fix((CLIENTS * ROUNDS_PER_CLIENT * 2) / (wall / 1000), 0)} calls/s`]
    }
    return {
      id: 'B14', title: TITLE, baseline: BASELINE,
      tables: [{
        caption: `${CLIENTS} MCP clients of 3 token owners, each reading and editing its own file ${ROUNDS_PER_CLIENT} times (${CLIENTS * ROUNDS_PER_CLIENT * 2} calls per pass, ${PASSES} passes per variant, alternated). Both variants share one Redis ledger on loopback; the cluster is three \`dsh start\` behind HAProxy round-robin without stickiness, all on this machine.`,
        header: ['variant', 'calls', 'p50 per call', 'p99 per call', 'wall time per pass', 'throughput'],
        rows: [row('one', 'one process'), row('three', 'three replicas + HAProxy')],
      }],
      verdicts: [{ target: 'the cluster against one process (stated)', measured: `p50 ${fix(summarize(results.three.calls).median, 2)} vs ${fix(summarize(results.one.calls).median, 2)} ms per call`, met: null }],
      notes: [
        'All replicas run on the same machine as the clients, Redis and HAProxy: the cluster adds a proxy hop and cannot add cores, so this measures its overhead, not the capacity it adds on separate machines.',
      ],
    }
  } finally {
    for (const child of children) await stop(child)
    await haproxy?.[Symbol.asyncDispose]()
    await redis[Symbol.asyncDispose]()
  }
}
