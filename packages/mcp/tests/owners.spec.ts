import { hasBinary, type RedisServer, stack, startRedis } from '@deepseek-ai/dsh-test-kit'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Context } from 'cordis'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import mcp, { Config, type McpConfigInput } from '../src/index'
import { tokenOwner } from '../src/owners'
import { toolContext } from './fixtures'

// `owner: token`: every request with the same bearer token is one policy owner, whatever its MCP
// session, and the HTTP transport keeps no session at all.

const ALICE = 'alice-token-0123456789abcdef'
const BOB = 'bob-token-0123456789abcdef00'
const disposers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

async function serve(ctx: Context, config: McpConfigInput = {}): Promise<string> {
  let url = ''
  const off = ctx.on('mcp/listening', (address) => { url = address })
  const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0, token: ALICE, tokens: [BOB], owner: 'token', ...config })
  off()
  disposers.push(() => fiber.dispose())
  return url
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  disposers.push(() => client.close())
  return client
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; code?: string; text: string }> {
  const result = await client.callTool({ name, arguments: args })
  const code = (result._meta?.['ai.deepseek.dsh/error'] as { code?: string } | undefined)?.code
  return { ok: result.isError !== true, ...(code === undefined ? {} : { code }), text: (result.content as { text: string }[]).map((part) => part.text).join('') }
}

describe('the owner config', () => {
  it('refuses owner: token over stdio or without a token, naming the setting', () => {
    expect(Config.safeParse({ owner: 'token' }).error?.message).toContain('owner: token needs transport: http with auth: token')
    expect(Config.safeParse({ transport: 'http', auth: 'none', owner: 'token' }).success).toBe(false)
    expect(Config.safeParse({ transport: 'http', auth: 'none', tokens: [ALICE] }).success).toBe(false)
    expect(Config.safeParse({ transport: 'http', token: ALICE, tokens: [ALICE] }).error?.message).toContain('a token is listed twice')
    expect(Config.safeParse({ transport: 'http', token: ALICE, tokens: ['short'] }).success).toBe(false)
  })

  it('takes a token with the workspace its calls belong to, checks the name, and still refuses a token listed twice', () => {
    expect(Config.parse({ transport: 'http', token: ALICE, tokens: [{ token: BOB, workspace: 'team-b' }] }).tokens).toEqual([{ token: BOB, workspace: 'team-b' }])
    expect(Config.safeParse({ transport: 'http', token: ALICE, tokens: [{ token: BOB, workspace: 'no spaces' }] }).error?.message).toContain('a workspace is 1-128 letters')
    expect(Config.safeParse({ transport: 'http', token: ALICE, tokens: [{ token: BOB, workspace: 'b', extra: 1 }] }).success).toBe(false)
    expect(Config.safeParse({ transport: 'http', token: ALICE, tokens: [{ token: ALICE, workspace: 'a' }] }).error?.message).toContain('a token is listed twice')
  })

  it('keys an owner by a hash that does not contain the token', () => {
    const owner = tokenOwner(ALICE)
    expect(owner).toMatch(/^token-[0-9a-f]{40}$/)
    expect(owner).not.toContain(ALICE)
    expect(tokenOwner(BOB)).not.toBe(owner)
  })
})

describe('owner: token over HTTP', () => {
  it('lets a read in one MCP connection count for an edit in another with the same token, and in no other token\'s', async () => {
    await using s = await stack({ rooted: true, tools: ['tool-fs'] })
    await writeFile(join(s.dir, 'a.txt'), 'one\n')
    const url = await serve(s.ctx)
    const reader = await connect(url, ALICE)
    expect((await call(reader, 'read', { file_path: 'a.txt' })).ok).toBe(true)
    await reader.close()
    // A client that opens a new connection per call, as some do: still the same owner.
    const editor = await connect(url, ALICE)
    expect(await call(editor, 'edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })).toMatchObject({ ok: true })
    const other = await connect(url, BOB)
    expect(await call(other, 'edit', { file_path: 'a.txt', old_string: 'two', new_string: 'three' })).toMatchObject({ ok: false, code: 'FS_NOT_OBSERVED' })
    expect(await readFile(join(s.dir, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it('issues no session id, and answers GET and DELETE with 405', async () => {
    await using s = await stack({ rooted: true, tools: ['tool-fs'] })
    const url = await serve(s.ctx)
    const client = await connect(url, ALICE)
    expect(client.transport!.sessionId).toBeUndefined()
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, { method, headers: { authorization: `Bearer ${ALICE}`, accept: 'text/event-stream' } })
      expect(response.status).toBe(405)
      expect(await response.text()).toContain('keeps no sessions (owner: token)')
    }
  })

  it('refuses a token that is not configured with 401', async () => {
    await using s = await stack({ rooted: true, tools: ['tool-fs'] })
    const url = await serve(s.ctx)
    const response = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer not-a-configured-token-at-all', 'content-type': 'application/json' }, body: '{}' })
    expect(response.status).toBe(401)
  })
})

describe('owner: session over HTTP (the default)', () => {
  it('gives each session its own owner: a new session with the same token has seen nothing', async () => {
    await using s = await stack({ rooted: true, tools: ['tool-fs'] })
    await writeFile(join(s.dir, 'a.txt'), 'one\n')
    const url = await serve(s.ctx, { owner: 'session' })
    const first = await connect(url, ALICE)
    expect((await call(first, 'read', { file_path: 'a.txt' })).ok).toBe(true)
    const second = await connect(url, ALICE)
    expect(await call(second, 'edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })).toMatchObject({ ok: false, code: 'FS_NOT_OBSERVED' })
  })
})

describe('a token\'s workspace', () => {
  for (const owner of ['token', 'session'] as const) {
    it(`rides on every session of that token (owner: ${owner}), and on none of a token without one`, async () => {
      const ctx = await toolContext()
      const url = await serve(ctx, { owner, tokens: [{ token: BOB, workspace: 'team-b' }] })
      const [bob, alice] = [await connect(url, BOB), await connect(url, ALICE)]
      expect((await call(bob, 'whoami', {})).text).toMatch(/^session \d+ in workspace team-b$/)
      expect((await call(alice, 'whoami', {})).text).toMatch(/^session \d+$/)
    })
  }
})

const redisAvailable = hasBinary('redis-server')
let redis: RedisServer | undefined
beforeAll(async () => { if (redisAvailable) redis = await startRedis() })
afterAll(async () => { await redis?.[Symbol.asyncDispose]() })

describe.runIf(redisAvailable)('owner: token with a Redis ledger', () => {
  it('stores the owner under the token\'s hash and never the token itself', async () => {
    await using s = await stack({ rooted: true, tools: ['tool-fs'], policyConfig: { ledger: `${redis!.url}/5`, retryTtlSeconds: 60 } })
    await writeFile(join(s.dir, 'a.txt'), 'one\n')
    const url = await serve(s.ctx)
    const client = await connect(url, ALICE)
    await call(client, 'read', { file_path: 'a.txt' })
    await call(client, 'edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })
    const { Redis } = await import('ioredis')
    const raw = new Redis(`${redis!.url}/5`)
    try {
      const keys = await raw.keys('*')
      expect(keys.length).toBeGreaterThan(0)
      expect(keys.every((key) => key.includes(tokenOwner(ALICE)))).toBe(true)
      for (const key of keys) {
        const type = await raw.type(key)
        const values = type === 'string' ? [await raw.get(key)] : type === 'zset' ? await raw.zrange(key, '0', '-1') : []
        expect([key, ...values].join('\n')).not.toContain(ALICE)
      }
    } finally {
      raw.disconnect()
    }
  })
})
