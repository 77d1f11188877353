import type { Context } from 'cordis'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolveToken, TOKEN_ENV, type TokenDirectory, tokenDirectory, writeTokenFile, type BearerToken } from './auth'
import { agentTokens, type McpConfig } from './config'
import { allowedHostnames, isLoopback, rejectForeignHost } from './host-check'
import { bearers, matchBearer, tokenOwner } from './owners'
import { createMcpServer } from './server'
import { SessionTable } from './sessions'

/** JSON-RPC code the MCP SDK uses for an unknown session: clients answer it by initializing again. */
const SESSION_NOT_FOUND = -32001

/**
 * Streamable HTTP: every `mcp-session-id` gets its own SDK server and its own `session` object,
 * so two clients never share observations (client A's read does not let client B edit).
 * Every request passes the Host/Origin allow-list, then the bearer token, then reaches its
 * session. Resolves once the socket listens; a bind failure rejects, which fails the plugin.
 */
export async function serveHttp(ctx: Context, config: McpConfig): Promise<void> {
  const logger = ctx.logger('mcp')
  if (config.auth === 'none' && !isLoopback(config.host)) {
    throw new Error(`refusing auth: none on host ${config.host}, which is not loopback: anyone on that network would get the file tools; drop auth: none (the default auth: token needs a bearer token) or bind host: 127.0.0.1`)
  }
  const token = config.auth === 'token' ? resolveToken(config.token) : undefined
  const { accepted, placed } = bearers(token?.value, agentTokens(config.tokens))
  // Made once the port is bound: a start that fails before then leaves no directory behind.
  let tokenDir: TokenDirectory | undefined
  let tokenFile: string | undefined
  const allowed = allowedHostnames(config.host, config.allowedHosts ?? [])
  const sessions = new SessionTable<StreamableHTTPServerTransport>({ idleMs: config.sessionIdleSeconds * 1000, max: config.maxSessions })

  async function open(request: IncomingMessage, response: ServerResponse, bearer: string | undefined): Promise<void> {
    if (!sessions.claim()) {
      response.setHeader('retry-after', '60')
      return reply(response, 503, `all ${config.maxSessions} MCP sessions have a request in progress; retry later, or raise maxSessions in the mcp config of dsh`, -32000)
    }
    const session = { transport: 'http' as const, id: '', ...placed(bearer) }
    const server = createMcpServer({ tools: ctx.tools, session, instructions: ctx.get('systemPrompt')?.render() })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: config.maxMessageBytes,
      onsessioninitialized: (id) => {
        session.id = id
        sessions.add(id, transport, (reason) => {
          logger.info('session %s closed: %s (%d active)', id, reason === 'idle' ? `idle for ${config.sessionIdleSeconds} s` : `evicted for a new session, ${config.maxSessions} at most`, sessions.size)
          void server.close()
          ctx.emit('mcp/session-closed', id, reason)
        })
        if (response.closed) sessions.end(id)
        else response.once('close', () => sessions.end(id))
        logger.info('session %s opened (%d active)', id, sessions.size)
      },
    })
    transport.onclose = () => {
      if (session.id === '' || !sessions.delete(session.id)) return
      logger.info('session %s closed by the client (%d active)', session.id, sessions.size)
      ctx.emit('mcp/session-closed', session.id, 'client')
    }
    await server.connect(transport)
    try {
      await transport.handleRequest(request, response)
    } finally {
      if (session.id === '') sessions.release()
    }
    // Anything but a valid initialize leaves no session behind: the SDK already answered 400.
    if (session.id === '') await server.close()
  }

  // A client that sends no token, or another one, would otherwise fail with nothing in dsh's log.
  const refusals = refusalLog(logger)

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (url.pathname !== config.path) return reply(response, 404, `no MCP endpoint at ${url.pathname}; use ${config.path}`)
    const refusal = rejectForeignHost(request, allowed)
    if (refusal !== undefined) return reply(response, 403, refusal)
    const bearer = token === undefined ? undefined : matchBearer(request.headers.authorization, accepted)
    if (token !== undefined && bearer === undefined) {
      refusals.log(request)
      response.setHeader('www-authenticate', 'Bearer realm="dsh"')
      return reply(response, 401, `missing or wrong bearer token: send the header "Authorization: Bearer <token>"; ${whereIsTheToken(token, tokenFile)}`, -32000)
    }
    if (config.owner === 'token') return stateless(request, response, bearer!)
    const id = request.headers['mcp-session-id']
    if (typeof id === 'string') {
      const use = sessions.begin(id)
      if (use === undefined) return reply(response, 404, 'session not found (it expired, was evicted, or dsh restarted): initialize a new session', SESSION_NOT_FOUND)
      response.once('close', use.end)
      return use.value.handleRequest(request, response)
    }
    if (request.method !== 'POST') return reply(response, 400, 'missing mcp-session-id header', -32000)
    return open(request, response, bearer)
  }

  const owners = new Map<string, object>()
  let inFlight = 0

  /**
   * `owner: token`: the transport keeps nothing between requests. Each POST gets a server of its
   * own, answers in one JSON body and is forgotten, so any replica can serve any request; the
   * owner is the token's hash, one session object per token (so calls of one agent still take
   * turns in this process, as one session's do). No session id is issued, and the GET event stream
   * and DELETE of a session do not exist.
   */
  async function stateless(request: IncomingMessage, response: ServerResponse, bearer: string): Promise<void> {
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST')
      return reply(response, 405, 'this MCP server keeps no sessions (owner: token): send every request as a POST, without mcp-session-id', -32000)
    }
    if (inFlight >= config.maxSessions) {
      response.setHeader('retry-after', '1')
      return reply(response, 503, `${config.maxSessions} MCP requests are in progress; retry later, or raise maxSessions in the mcp config of dsh`, -32000)
    }
    const owner = tokenOwner(bearer)
    let session = owners.get(owner)
    if (session === undefined) owners.set(owner, (session = { transport: 'http' as const, owner, ...placed(bearer) }))
    const server = createMcpServer({ tools: ctx.tools, session, instructions: ctx.get('systemPrompt')?.render() })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: config.maxMessageBytes })
    inFlight++
    response.once('close', () => {
      inFlight--
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(request, response)
  }

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.warn(error)
      if (!response.headersSent) reply(response, 500, 'internal error')
    })
  })

  await ctx.effect(async () => {
    await listen(http, config.port, config.host)
    const { port } = http.address() as AddressInfo
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${config.path}`
    try {
      if (token?.source === 'generated') {
        tokenDir = await tokenDirectory()
        tokenFile = await writeTokenFile(tokenDir.dir, port, token.value)
      }
    } catch (error) {
      await new Promise<void>((resolve) => http.close(() => resolve()))
      if (tokenDir?.own) await rm(tokenDir.dir, { recursive: true, force: true })
      throw error
    }
    logger.info('serving MCP over Streamable HTTP at %s', url)
    if (token === undefined) logger.warn('auth: none: every local user can call the file tools at %s', url)
    else if (tokenFile !== undefined) logger.info('bearer token %s (also in %s, mode 0600)', token.value, tokenFile)
    else logger.info('bearer token from %s', token.source === 'env' ? TOKEN_ENV : 'the mcp config')
    ctx.emit('mcp/listening', url)
    return async () => {
      await Promise.allSettled(sessions.values().map((transport) => transport.close()))
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
      if (tokenFile !== undefined) await rm(tokenFile, { force: true })
      // A directory this start made for itself (`mkdtemp`) goes with its one file.
      if (tokenDir?.own) await rm(tokenDir.dir, { recursive: true, force: true })
    }
  }, 'mcp http')
}

function whereIsTheToken(token: BearerToken, file: string | undefined): string {
  if (token.source === 'env') return `the token is the value of ${TOKEN_ENV} that dsh was started with`
  if (token.source === 'config') return 'the token is the one set as token in the mcp config of dsh'
  return `the token is in ${file} (also printed on dsh's stderr when it started)`
}

function listen(http: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new Error(`cannot listen on ${host}:${port}: ${error.message}`, { cause: error }))
    http.once('error', onError)
    http.listen(port, host, () => {
      http.off('error', onError)
      resolve()
    })
  })
}

/** A JSON-RPC error body, which is what MCP clients expect even for transport-level refusals. */
function reply(response: ServerResponse, status: number, message: string, code = -32600): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

/**
 * Logs each request refused for its token: whether a token came at all, and from which address
 * (never the token). A flood is summed up: at most one line a second, with the count since.
 */
function refusalLog(logger: ReturnType<Context['logger']>): { log(request: IncomingMessage): void } {
  let last = 0
  let unlogged = 0
  return {
    log(request) {
      const now = Date.now()
      if (now - last < 1000) {
        unlogged++
        return
      }
      last = now
      const header = request.headers.authorization
      const what = header === undefined ? 'no Authorization header' : /^Bearer\s/i.test(header) ? 'a wrong bearer token' : 'an Authorization header that is not a bearer token'
      const more = unlogged > 0 ? ` (and ${unlogged} more refusals in the last seconds)` : ''
      unlogged = 0
      logger.warn('refused %s %s from %s port %s: %s%s', request.method, request.url, request.socket.remoteAddress, request.socket.remotePort, what, more)
    },
  }
}
