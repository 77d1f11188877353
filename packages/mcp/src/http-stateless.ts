import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type HttpRoute, reply, type RouteDeps } from './http-reply'
import { tokenOwner } from './owners'
import { createMcpServer } from './server'

/**
 * `owner: token`: the transport keeps nothing between requests. Each POST gets a server of its
 * own, answers in one JSON body and is forgotten, so any replica can serve any request; the
 * owner is the token's hash, one session object per token (so calls of one agent still take
 * turns in this process, as one session's do). No session id is issued, and the GET event stream
 * and DELETE of a session do not exist.
 */
export function statelessRoute({ ctx, config, placed }: RouteDeps): HttpRoute {
  const owners = new Map<string, object>()
  let inFlight = 0
  const sessionOf = (bearer: string): object => {
    const owner = tokenOwner(bearer)
    let session = owners.get(owner)
    if (session === undefined) owners.set(owner, (session = { transport: 'http' as const, owner, ...placed(bearer) }))
    return session
  }
  async function handle(request: IncomingMessage, response: ServerResponse, bearer: string | undefined): Promise<void> {
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST')
      return reply(response, 405, 'this MCP server keeps no sessions (owner: token): send every request as a POST, without mcp-session-id', -32000)
    }
    if (inFlight >= config.maxSessions) {
      response.setHeader('retry-after', '1')
      return reply(response, 503, `${config.maxSessions} MCP requests are in progress; retry later, or raise maxSessions in the mcp config of dsh`, -32000)
    }
    // `owner: token` requires `auth: token` (the config says so), so a request here carries a bearer.
    const server = createMcpServer({ tools: ctx.tools, session: sessionOf(bearer!), instructions: ctx.get('systemPrompt')?.render() })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: config.maxMessageBytes })
    inFlight++
    response.once('close', () => {
      inFlight--
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(request, response)
  }
  return { handle, close: async () => {} }
}
