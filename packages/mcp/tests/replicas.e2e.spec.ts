import { freePort, hasBinary, type HaproxyServer, type RedisServer, startHaproxy, startRedis } from '@deepseek-ai/dsh-test-kit'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { ChildProcess } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { call, requireBuild, startDsh, tempDir } from './dsh-process'
import { localFs, stackConfig } from './stack-config'

// Three `dsh start` replicas on one workspace, sharing one Redis ledger, behind HAProxy
// round-robin without stickiness: the files and their compare-and-swap belong to the provider,
// the observations to the ledger, and no replica holds anything a request depends on.

const available = hasBinary('redis-server') && hasBinary('haproxy')
const REPLICAS = 3
const TOKENS = ['replica-agent-one-0123456789', 'replica-agent-two-0123456789', 'replica-agent-three-012345']

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 })

interface Replica {
  port: number
  config: string
  child: ChildProcess
}

let workspace: Awaited<ReturnType<typeof tempDir>>
let redis: RedisServer
let haproxy: HaproxyServer
let url: string
const replicas: Replica[] = []

function replicaConfig(dir: string, port: number, ledger: string): string {
  return stackConfig({
    fs: localFs(dir),
    policy: `{ ledger: '${ledger}', retryTtlSeconds: 300 }`,
    mcp: `{ transport: http, port: ${port}, owner: token, token: '${TOKENS[0]}', tokens: ['${TOKENS[1]}', '${TOKENS[2]}'] }`,
  })
}

async function startReplica(replica: Omit<Replica, 'child'>): Promise<Replica> {
  // Replicas live for the whole file (killed by afterAll, or by a test), however slow a loaded machine makes it.
  const dsh = await startDsh(['--config', replica.config], workspace.dir, { ...process.env, DSH_MCP_TOKEN: '' }, 15 * 60_000)
  return { ...replica, child: dsh.child }
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

beforeAll(async () => {
  if (!available) return
  requireBuild()
  workspace = await tempDir()
  redis = await startRedis()
  const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()))
  for (const [index, port] of ports.entries()) {
    const config = join(workspace.dir, '..', `${workspace.dir.split('/').at(-1)}-replica-${index}.yml`)
    await writeFile(config, replicaConfig(workspace.dir, port, `${redis.url}/1`))
    replicas.push(await startReplica({ port, config }))
  }
  haproxy = await startHaproxy(ports)
  url = `http://127.0.0.1:${haproxy.port}/mcp`
})

afterAll(async () => {
  if (!available) return
  for (const replica of replicas) await kill(replica.child)
  await haproxy?.[Symbol.asyncDispose]()
  await redis?.[Symbol.asyncDispose]()
  await workspace?.[Symbol.asyncDispose]()
})

/** An MCP client through the load balancer; `served()` names the replica that answered its last request. */
async function connect(token: string): Promise<{ client: Client; served: () => string | undefined }> {
  let last: string | undefined
  const client = new Client({ name: 'replica-test', version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const response = await fetch(input, init)
      last = response.headers.get('x-dsh-replica') ?? last
      return response
    },
  }))
  return { client, served: () => last }
}


describe.runIf(available)('three replicas behind round-robin, one Redis ledger', () => {
  it('lose no update in 600 racing calls spread across the replicas', async () => {
    await writeFile(join(workspace.dir, 'shared.txt'), 'END\n')
    const agents = await Promise.all([0, 1, 2, 0, 1, 2].map((token) => connect(TOKENS[token]!)))
    let started = 0
    const applied: string[] = []
    const seenBy = new Set<string>()
    const other: string[] = []
    await Promise.all(agents.map(async ({ client, served }, agent) => {
      let edits = 0
      while (started < 600) {
        started++
        const read = await call(client, 'read', { file_path: 'shared.txt' })
        seenBy.add(served()!)
        if (!read.ok) { other.push(`read: ${read.code} ${read.text}`); continue }
        if (started >= 600) break
        started++
        const line = `agent${agent}-${edits++}`
        const edit = await call(client, 'edit', { file_path: 'shared.txt', old_string: 'END', new_string: `${line}\nEND` })
        seenBy.add(served()!)
        if (edit.ok) applied.push(line)
        else if (edit.code !== 'FS_STALE_VERSION') other.push(`edit: ${edit.code} ${edit.text}`)
      }
    }))
    await Promise.all(agents.map(({ client }) => client.close()))
    const lines = (await readFile(join(workspace.dir, 'shared.txt'), 'utf8')).split('\n').filter((line) => line !== '' && line !== 'END')
    expect(other).toEqual([])
    expect(started).toBe(600)
    expect(seenBy.size).toBe(REPLICAS)
    // Every edit reported as applied is in the file once, and the file holds nothing else.
    expect(applied.length).toBeGreaterThan(10)
    expect(lines.slice().sort()).toEqual(applied.slice().sort())
  })

  it('never says "has not been read" after the replica that served the read was killed', async () => {
    const notRead: string[] = []
    for (let round = 0; round < REPLICAS; round++) {
      const { client, served } = await connect(TOKENS[round]!)
      const file = `kill-${round}.txt`
      await writeFile(join(workspace.dir, file), 'before\n')
      expect(await call(client, 'read', { file_path: file })).toMatchObject({ ok: true })
      const victim = replicas.findIndex((_, index) => `r${index}` === served())
      expect(victim).toBeGreaterThanOrEqual(0)
      await kill(replicas[victim]!.child)
      const edited = await call(client, 'edit', { file_path: file, old_string: 'before', new_string: 'after' })
      if (edited.code === 'FS_NOT_OBSERVED') notRead.push(file)
      expect(edited).toMatchObject({ ok: true })
      expect(served()).not.toBe(`r${victim}`)
      expect(await readFile(join(workspace.dir, file), 'utf8')).toBe('after\n')
      await client.close()
      replicas[victim] = await startReplica(replicas[victim]!)
    }
    expect(notRead).toEqual([])
  })

  it('writes nothing twice in a retry storm: every call sent again as if its response was lost', async () => {
    await writeFile(join(workspace.dir, 'storm.txt'), 'END\n')
    const { client } = await connect(TOKENS[1]!)
    const outcomes: string[] = []
    for (let index = 0; index < 40; index++) {
      const read = { file_path: 'storm.txt' }
      await call(client, 'read', read)
      const edit = { file_path: 'storm.txt', old_string: 'END', new_string: `storm-${index}\nEND` }
      // The first response is dropped; the same call goes out again, and round-robin sends it to another replica.
      const lost = await call(client, 'edit', edit)
      const retried = await call(client, 'edit', edit)
      expect(retried).toEqual(lost)
      outcomes.push(retried.ok ? 'ok' : String(retried.code))
    }
    await client.close()
    const lines = (await readFile(join(workspace.dir, 'storm.txt'), 'utf8')).split('\n').filter((line) => line.startsWith('storm-'))
    expect(outcomes.every((outcome) => outcome === 'ok')).toBe(true)
    expect(lines).toEqual(Array.from({ length: 40 }, (_, index) => `storm-${index}`))
  })
})
