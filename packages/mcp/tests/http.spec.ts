import { stack } from '@deepseek-ai/dsh-test-kit'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Context } from 'cordis'
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import mcp, { type McpConfigInput } from '../src/index'
import { toolContext } from './fixtures'

const TOKEN = 'test-token-0123456789abcdef'
const disposers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

async function serve(config: McpConfigInput = {}, ctx?: Context): Promise<{ ctx: Context; url: string }> {
  ctx ??= await toolContext()
  let url = ''
  const off = ctx.on('mcp/listening', (address) => { url = address })
  const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0, token: TOKEN, ...config })
  off()
  disposers.push(() => fiber.dispose())
  return { ctx, url }
}

function transport(url: string, token = TOKEN, sessionId?: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } }, ...(sessionId ? { sessionId } : {}) })
}

async function connect(url: string, token = TOKEN): Promise<Client> {
  const client = new Client({ name: 'test', version: '0.0.0' })
  await client.connect(transport(url, token))
  disposers.push(() => client.close())
  return client
}

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function post(url: string, headers: Record<string, string>, body: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject).end(JSON.stringify(body))
  })
}

const auth = { authorization: `Bearer ${TOKEN}` }
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }
const errorOf = (reply: Reply) => (JSON.parse(reply.body) as { error: { code: number; message: string } }).error
const whoami = async (client: Client) => ((await client.callTool({ name: 'whoami', arguments: {} })).content as { text: string }[])[0]!.text

describe('the Streamable HTTP transport', () => {
  it('reports the real address when asked for port 0', async () => {
    const { url } = await serve()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(url).not.toMatch(/:0\/mcp$/)
  })

  it('gives each MCP session its own policy owner, kept across its calls', async () => {
    const { url } = await serve()
    const [a, b] = await Promise.all([connect(url), connect(url)])
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

  it('answers an unknown session id with 404 and the code that makes clients initialize again', async () => {
    const { url } = await serve()
    const reply = await post(url, { ...auth, 'mcp-session-id': 'nope' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })
    expect(reply.status).toBe(404)
    expect(errorOf(reply).code).toBe(-32001)
    expect((await post(url.replace(/\/mcp$/, '/other'), auth, initialize)).status).toBe(404)
  })

  it('fails the plugin with the address when the port is taken', async () => {
    const { ctx, url } = await serve()
    const port = Number(new URL(url).port)
    await expect(ctx.plugin(mcp, { transport: 'http', port, token: TOKEN })).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`)
  })

  it('closes its port when the plugin is disposed', async () => {
    const ctx = await toolContext()
    let url = ''
    ctx.on('mcp/listening', (address) => { url = address })
    const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0, token: TOKEN })
    await connect(url)
    await fiber.dispose()
    await expect(post(url, auth, initialize)).rejects.toThrow(/ECONNREFUSED/)
  })
})

describe('HTTP authentication', () => {
  it('refuses a request without the bearer token with 401, saying which header to send', async () => {
    const { url } = await serve()
    const reply = await post(url, {}, initialize)
    expect(reply.status).toBe(401)
    expect(reply.headers['www-authenticate']).toBe('Bearer realm="dsh"')
    expect(errorOf(reply).message).toContain('"Authorization: Bearer <token>"')
    expect(errorOf(reply).message).toContain('the one set as token in the mcp config')
    expect(reply.headers['mcp-session-id']).toBeUndefined()
  })

  it('refuses a wrong token, and the official client sees 401', async () => {
    const { url } = await serve()
    expect((await post(url, { authorization: `Bearer ${TOKEN}x` }, initialize)).status).toBe(401)
    const client = new Client({ name: 'test', version: '0.0.0' })
    await expect(client.connect(transport(url, 'wrong-token-0123456789'))).rejects.toMatchObject({ code: 401 })
  })

  it('checks the token on every request of a session, not only on initialize', async () => {
    const { url } = await serve()
    const client = await connect(url)
    const sessionId = client.transport!.sessionId!
    const reply = await post(url, { 'mcp-session-id': sessionId }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })
    expect(reply.status).toBe(401)
    expect(await whoami(client)).toBe('session 1')
  })

  it('takes the token from DSH_MCP_TOKEN when the config has none', async () => {
    vi.stubEnv('DSH_MCP_TOKEN', 'from-the-environment-123')
    try {
      const { url } = await serve({ token: undefined })
      expect((await post(url, auth, initialize)).status).toBe(401)
      const reply = await post(url, {}, initialize)
      expect(errorOf(reply).message).toContain('the value of DSH_MCP_TOKEN')
      expect(await whoami(await connect(url, 'from-the-environment-123'))).toBe('session 1')
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('starts when another user made <tmp>/dsh-<uid> first and XDG_RUNTIME_DIR is unset: the token goes to a fresh private directory, removed on stop', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'dsh-shared-tmp-'))
    const planted = join(tmp, `dsh-${process.getuid!()}`)
    await mkdir(planted, { mode: 0o700 })
    // As root the test hands it to another uid; otherwise a directory others can enter is as unsafe.
    if (process.getuid!() === 0) await chown(planted, 4242, 4242)
    else await chmod(planted, 0o777)
    vi.stubEnv('XDG_RUNTIME_DIR', '')
    vi.stubEnv('TMPDIR', tmp)
    vi.stubEnv('DSH_MCP_TOKEN', '')
    try {
      const ctx = await toolContext()
      let url = ''
      ctx.on('mcp/listening', (address) => { url = address })
      const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0 })
      const [own] = (await readdir(tmp)).filter((name) => name.startsWith(`dsh-${process.getuid!()}-`))
      expect(own).toBeDefined()
      const file = join(tmp, own!, `mcp-${new URL(url).port}.token`)
      expect((await stat(join(tmp, own!))).mode & 0o777).toBe(0o700)
      expect((await stat(file)).mode & 0o777).toBe(0o600)
      const token = (await readFile(file, 'utf8')).trim()
      expect(errorOf(await post(url, {}, initialize)).message).toContain(`the token is in ${file}`)
      const client = new Client({ name: 'test', version: '0.0.0' })
      await client.connect(transport(url, token))
      expect(await whoami(client)).toBe('session 1')
      await client.close()
      await fiber.dispose()
      // The directory it made goes with the token; the planted one is untouched and empty.
      expect((await readdir(tmp)).sort()).toEqual([`dsh-${process.getuid!()}`])
      expect(await readdir(planted)).toEqual([])
    } finally {
      vi.unstubAllEnvs()
      await rm(tmp, { recursive: true, force: true })
    }
  })

  it('generates a token per start, writes it to a 0600 file named in the 401, and removes the file on stop', async () => {
    const runtime = await mkdtemp(join(tmpdir(), 'dsh-runtime-'))
    vi.stubEnv('XDG_RUNTIME_DIR', runtime)
    vi.stubEnv('DSH_MCP_TOKEN', '')
    try {
      const ctx = await toolContext()
      let url = ''
      ctx.on('mcp/listening', (address) => { url = address })
      const fiber = await ctx.plugin(mcp, { transport: 'http', port: 0 })
      const file = join(runtime, 'dsh', `mcp-${new URL(url).port}.token`)
      expect((await stat(file)).mode & 0o777).toBe(0o600)
      const token = (await readFile(file, 'utf8')).trim()
      expect(token).toMatch(/^[\w-]{43}$/)
      expect(errorOf(await post(url, {}, initialize)).message).toContain(`the token is in ${file}`)
      const client = new Client({ name: 'test', version: '0.0.0' })
      await client.connect(transport(url, token))
      expect(await whoami(client)).toBe('session 1')
      await client.close()
      await fiber.dispose()
      await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' })
    } finally {
      vi.unstubAllEnvs()
      await rm(runtime, { recursive: true, force: true })
    }
  })

  it('serves without a token only when auth: none is asked for on loopback', async () => {
    const { url } = await serve({ auth: 'none', token: undefined })
    expect((await post(url, {}, initialize)).status).toBe(200)
  })

  it('refuses to start on a non-loopback bind with auth: none, naming the setting', async () => {
    const ctx = await toolContext()
    await expect(ctx.plugin(mcp, { transport: 'http', port: 0, host: '0.0.0.0', auth: 'none' }))
      .rejects.toThrow('refusing auth: none on host 0.0.0.0, which is not loopback')
  })
})

describe('the Host and Origin allow-list', () => {
  it('refuses a request whose Host is not loopback (DNS rebinding) with 403, even with the token', async () => {
    const { url } = await serve()
    const reply = await post(url, { ...auth, host: 'evil.example:80' }, initialize)
    expect(reply.status).toBe(403)
    expect(errorOf(reply).message).toContain('evil.example')
  })

  it('refuses a browser origin that is not loopback with 403', async () => {
    const { url } = await serve()
    expect((await post(url, { ...auth, origin: 'https://evil.example' }, initialize)).status).toBe(403)
    expect((await post(url, { ...auth, origin: 'null' }, initialize)).status).toBe(403)
    expect((await post(url, { ...auth, origin: 'http://localhost:5173' }, initialize)).status).toBe(200)
  })

  it('still guards Host on a wildcard bind, allowing loopback, the interface addresses and allowedHosts', async () => {
    const { url } = await serve({ host: '0.0.0.0', allowedHosts: ['dsh.test'] })
    const port = new URL(url).port
    const local = `http://127.0.0.1:${port}/mcp`
    expect((await post(local, { ...auth, host: `evil.example:${port}` }, initialize)).status).toBe(403)
    expect((await post(local, { ...auth, host: `dsh.test:${port}` }, initialize)).status).toBe(200)
    expect((await post(local, { ...auth, host: `DSH.test` }, initialize)).status).toBe(200)
    expect((await post(local, { ...auth, host: `127.0.0.1:${port}` }, initialize)).status).toBe(200)
    expect((await post(local, { ...auth, host: `dsh.test:${port}`, origin: 'http://evil.example' }, initialize)).status).toBe(403)
  })
})

/** Runs gc until `ref` is cleared, a bounded number of times: false when something keeps it alive. */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  const { setFlagsFromString } = await import('node:v8')
  const { runInNewContext } = await import('node:vm')
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  for (let round = 0; round < 20 && ref.deref() !== undefined; round++) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
  }
  return ref.deref() === undefined
}

/** Resolves once `ctx` reports that `sessionId` closed for being idle; then its id must get 404. */
function expiry(ctx: Context, sessionId: () => string): Promise<void> {
  return new Promise((resolve) => {
    const off = ctx.on('mcp/session-closed', (id, reason) => {
      if (id !== sessionId() || reason !== 'idle') return
      off()
      resolve()
    })
  })
}

async function answersNotFound(url: string, sessionId: string): Promise<boolean> {
  return (await post(url, { ...auth, 'mcp-session-id': sessionId }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status === 404
}

/** A tool that hands the test a weak reference to the session object of each call. */
function trackSessions(ctx: Context): WeakRef<object>[] {
  const refs: WeakRef<object>[] = []
  ctx.tools.register(defineTool({
    name: 'track',
    title: 'Track sessions',
    description: 'Remembers the session weakly.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: z.object({}),
    execute: (_input, exec) => {
      refs.push(new WeakRef(exec.agent!.session))
      return 'ok'
    },
  }))
  return refs
}

/** Long enough that a test's own consecutive requests never straddle it, even on a loaded machine. */
const IDLE_SECONDS = 1

describe('HTTP session expiry', () => {
  it('closes an idle session: its id then gets 404, the client initializes again, and the session object is collected', async () => {
    const ctx = await toolContext()
    const refs = trackSessions(ctx)
    const { url } = await serve({ sessionIdleSeconds: IDLE_SECONDS }, ctx)
    const first = new Client({ name: 'test', version: '0.0.0' })
    await first.connect(transport(url))
    const sessionId = first.transport!.sessionId!
    const gone = expiry(ctx, () => sessionId)
    await first.callTool({ name: 'track', arguments: {} })
    // Like every real client tested: it goes away without DELETE.
    await first.close()
    await gone
    expect(await answersNotFound(url, sessionId)).toBe(true)
    // The official client, resuming that session, gets the 404 the spec answers with a new initialize.
    const resumed = new Client({ name: 'test', version: '0.0.0' })
    await resumed.connect(transport(url, TOKEN, sessionId))
    await expect(resumed.listTools()).rejects.toMatchObject({ code: 404 })
    await resumed.close()
    const again = await connect(url)
    expect(again.transport!.sessionId).not.toBe(sessionId)
    expect((await again.listTools()).tools.map((tool) => tool.name)).toContain('track')
    expect(await collected(refs[0]!)).toBe(true)
  })

  it('releases the session of the real stack, with its observations and undo history, once it expired', async () => {
    await using s = await stack({ rooted: true, tools: ['str-replace-editor'] })
    const file = join(s.dir, 'a.txt')
    await writeFile(file, 'one\ntwo\n')
    const ctx = s.ctx
    const refs = trackSessions(ctx)
    const { url } = await serve({ sessionIdleSeconds: IDLE_SECONDS }, ctx)
    const client = new Client({ name: 'test', version: '0.0.0' })
    await client.connect(transport(url))
    const sessionId = client.transport!.sessionId!
    const gone = expiry(ctx, () => sessionId)
    const edit = (args: Record<string, unknown>) => client.callTool({ name: 'str_replace_editor', arguments: args })
    expect((await edit({ command: 'view', path: 'a.txt' })).isError).toBe(false)
    expect((await edit({ command: 'str_replace', path: 'a.txt', old_str: 'two', new_str: 'TWO' })).isError).toBe(false)
    await client.callTool({ name: 'track', arguments: {} })
    expect(await readFile(file, 'utf8')).toBe('one\nTWO\n')
    await client.close()
    await gone
    expect(await answersNotFound(url, sessionId)).toBe(true)
    expect(await collected(refs[0]!)).toBe(true)
    // A new session starts with nothing observed and nothing to undo.
    const next = await connect(url)
    const undo = await next.callTool({ name: 'str_replace_editor', arguments: { command: 'undo_edit', path: 'a.txt' } })
    expect(undo._meta?.['ai.deepseek.dsh/error']).toEqual({ code: 'NO_EDIT_HISTORY' })
    expect(await readFile(file, 'utf8')).toBe('one\nTWO\n')
  })

  it('keeps a connected session (its event stream open) and its session object alive', async () => {
    const ctx = await toolContext()
    const refs = trackSessions(ctx)
    const { url } = await serve({ sessionIdleSeconds: IDLE_SECONDS }, ctx)
    const client = await connect(url)
    await client.callTool({ name: 'track', arguments: {} })
    // A session opened later and left idle expires: the connected one has been idle as long.
    let idleId = ''
    const gone = expiry(ctx, () => idleId)
    idleId = (await post(url, auth, initialize)).headers['mcp-session-id'] as string
    await gone
    expect(await collected(refs[0]!)).toBe(false)
    expect(await whoami(client)).toBe('session 1')
  })

  it('evicts no one for a request that is not a valid initialize', async () => {
    const { url } = await serve({ maxSessions: 1 })
    const idle = (await post(url, auth, initialize)).headers['mcp-session-id'] as string
    expect((await post(url, auth, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(400)
    const headers = { ...auth, 'mcp-session-id': idle, 'mcp-protocol-version': '2025-06-18' }
    expect((await post(url, headers, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(200)
  })

  it('evicts the least recently used idle session for a new one over maxSessions, and refuses with 503 when none is idle', async () => {
    const { url } = await serve({ maxSessions: 2 })
    const a = new Client({ name: 'a', version: '0.0.0' })
    await a.connect(transport(url))
    const aId = a.transport!.sessionId!
    await connect(url)
    // Both hold their event streams open: nothing may be evicted.
    const refused = await post(url, auth, initialize)
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('60')
    expect(errorOf(refused).message).toContain('raise maxSessions')
    await a.close()
    await vi.waitFor(async () => { expect((await post(url, auth, initialize)).status).toBe(200) }, { timeout: 10_000, interval: 50 })
    expect((await post(url, { ...auth, 'mcp-session-id': aId }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(404)
  })
})
