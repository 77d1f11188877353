import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Context } from 'cordis'
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import mcp from '../src/index'
import { toolContext } from './fixtures'

const disposers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

async function serve(): Promise<{ ctx: Context; url: string }> {
  const ctx = await toolContext()
  let url = ''
  ctx.on('mcp/listening', (address) => { url = address })
  const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0 })
  disposers.push(() => fiber.dispose())
  return { ctx, url }
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  disposers.push(() => client.close())
  return client
}

function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject).end(JSON.stringify(body))
  })
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }

describe('the Streamable HTTP transport', () => {
  it('reports the real address when asked for port 0', async () => {
    const { url } = await serve()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(url).not.toMatch(/:0\/mcp$/)
  })

  it('gives each MCP session its own policy owner, kept across its calls', async () => {
    const { url } = await serve()
    const [a, b] = await Promise.all([connect(url), connect(url)])
    const whoami = async (client: Client) => ((await client.callTool({ name: 'whoami', arguments: {} })).content as { text: string }[])[0]!.text
    const first = await whoami(a)
    const second = await whoami(b)
    expect(first).not.toBe(second)
    expect(await whoami(a)).toBe(first)
    expect(await whoami(b)).toBe(second)
  })

  it('sends the system prompt as instructions to every session', async () => {
    const { url } = await serve()
    const client = await connect(url)
    expect(client.getInstructions()).toBe('Read a file before you edit it.')
  })

  it('refuses a request whose Host is not loopback (DNS rebinding) with 403', async () => {
    const { url } = await serve()
    const response = await post(url, { host: 'evil.example:80' }, initialize)
    expect(response.status).toBe(403)
    expect(response.body).toContain('evil.example')
  })

  it('refuses a browser origin that is not loopback with 403', async () => {
    const { url } = await serve()
    const response = await post(url, { origin: 'https://evil.example' }, initialize)
    expect(response.status).toBe(403)
  })

  it('answers an unknown session id with 404 and other paths with 404', async () => {
    const { url } = await serve()
    expect((await post(url, { 'mcp-session-id': 'nope' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(404)
    expect((await post(url.replace(/\/mcp$/, '/other'), {}, initialize)).status).toBe(404)
  })

  it('fails the plugin with the address when the port is taken', async () => {
    const { ctx, url } = await serve()
    const port = Number(new URL(url).port)
    await expect(ctx.plugin(mcp, { transport: 'http', port })).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`)
  })

  it('closes its port when the plugin is disposed', async () => {
    const ctx = await toolContext()
    let url = ''
    ctx.on('mcp/listening', (address) => { url = address })
    const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0 })
    await connect(url)
    await fiber.dispose()
    await expect(post(url, {}, initialize)).rejects.toThrow(/ECONNREFUSED/)
  })
})
