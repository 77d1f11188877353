import type { Context } from 'cordis'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { Server as McpSdkServer } from '@modelcontextprotocol/sdk/server/index.js'
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { McpConfig } from './config'
import { isLoopback, rejectForeignHost } from './host-check'
import { createMcpServer } from './server'

interface HttpSession {
  transport: StreamableHTTPServerTransport
  server: McpSdkServer
}

/**
 * Streamable HTTP: every `mcp-session-id` gets its own SDK server and its own `session` object,
 * so two clients never share observations (client A's read does not let client B edit).
 * Resolves once the socket listens; a bind failure rejects, which fails the plugin.
 */
export async function serveHttp(ctx: Context, config: McpConfig): Promise<void> {
  const logger = ctx.logger('mcp')
  const sessions = new Map<string, HttpSession>()
  const guardHost = isLoopback(config.host)

  async function open(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const session = { transport: 'http' as const, id: '' }
    const server = createMcpServer({ tools: ctx.tools, session, instructions: ctx.get('systemPrompt')?.render() })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id
        sessions.set(id, { transport, server })
        logger.info('session %s opened (%d active)', id, sessions.size)
      },
    })
    transport.onclose = () => {
      if (session.id === '' || !sessions.delete(session.id)) return
      logger.info('session %s closed (%d active)', session.id, sessions.size)
    }
    await server.connect(transport)
    await transport.handleRequest(request, response)
    // Anything but a valid initialize leaves no session behind: the SDK already answered 400.
    if (session.id === '') await server.close()
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (url.pathname !== config.path) return reply(response, 404, `no MCP endpoint at ${url.pathname}; use ${config.path}`)
    const refusal = guardHost ? rejectForeignHost(request) : undefined
    if (refusal !== undefined) return reply(response, 403, refusal)
    const id = request.headers['mcp-session-id']
    if (typeof id === 'string') {
      const known = sessions.get(id)
      if (known === undefined) return reply(response, 404, 'unknown or closed MCP session; initialize a new one', -32001)
      return known.transport.handleRequest(request, response)
    }
    if (request.method !== 'POST') return reply(response, 400, 'missing mcp-session-id header', -32000)
    return open(request, response)
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
    logger.info('serving MCP over Streamable HTTP at %s', url)
    ctx.emit('mcp/listening', url)
    return async () => {
      await Promise.allSettled([...sessions.values()].map(({ server }) => server.close()))
      sessions.clear()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  }, 'mcp http')
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
