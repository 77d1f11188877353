import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import mcp, { type McpConfigInput } from '../src/index'
import { toolContext } from './fixtures'

// A session belongs to the token that opened it: with several tokens (one per agent, each perhaps
// with its own workspace), another valid token that learns a session's id must not drive it.

const ALICE = 'alice-token-0123456789abcdef'
const BOB = 'bob-token-0123456789abcdef00'
const disposers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

async function serve(ctx: Context, config: McpConfigInput): Promise<string> {
  let url = ''
  const off = ctx.on('mcp/listening', (address) => { url = address })
  const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0, token: ALICE, ...config })
  off()
  disposers.push(() => fiber.dispose())
  return url
}

async function connect(url: string, token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'test', version: '0.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
  await client.connect(transport)
  disposers.push(() => client.close())
  return { client, transport }
}

/** A raw tools/call of `whoami` into session `id`, as `token`. */
function whoamiAs(url: string, token: string, id: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18',
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  })
}

describe('an HTTP session and its token', () => {
  it('answers another valid token that names the session 404, as an unknown session, and serves its own', async () => {
    const url = await serve(await toolContext(), { tokens: [{ token: BOB, workspace: 'team-b' }] })
    const bob = await connect(url, BOB)
    const id = bob.transport.sessionId!
    const stolen = await whoamiAs(url, ALICE, id)
    expect(stolen.status).toBe(404)
    expect(await stolen.text()).not.toContain('team-b')
    const own = await whoamiAs(url, BOB, id)
    expect(own.status).toBe(200)
    expect(await own.text()).toContain('in workspace team-b')
  })
})
