import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type HttpRoute, reply, type RouteDeps, SESSION_NOT_FOUND } from './http-reply'
import { createMcpServer } from './server'
import { SessionTable } from './sessions'

/** A session's transport, and the token that opened it: the only one it answers. */
interface Served {
  transport: StreamableHTTPServerTransport
  bearer: string | undefined
}

type Sessions = SessionTable<Served>

/**
 * `owner: session`: every `mcp-session-id` gets its own SDK server and its own `session` object,
 * so two clients never share observations (client A's read does not let client B edit). A request
 * with an id reaches its session; a POST without one may open a new session.
 */
export function sessionRoute(deps: RouteDeps): HttpRoute {
  const { config } = deps
  const sessions: Sessions = new SessionTable({ idleMs: config.sessionIdleSeconds * 1000, max: config.maxSessions })
  async function handle(request: IncomingMessage, response: ServerResponse, bearer: string | undefined): Promise<void> {
    const id = request.headers['mcp-session-id']
    if (typeof id === 'string') {
      const use = sessions.begin(id)
      // Another agent's token naming this id (logged, or seen on the wire) finds no session: it
      // would act in that agent's workspace with its observations.
      if (use === undefined || use.value.bearer !== bearer) {
        use?.end()
        return reply(response, 404, 'session not found (it expired, was evicted, or dsh restarted): initialize a new session', SESSION_NOT_FOUND)
      }
      response.once('close', use.end)
      return use.value.transport.handleRequest(request, response)
    }
    if (request.method !== 'POST') return reply(response, 400, 'missing mcp-session-id header', -32000)
    return open(deps, sessions, request, response, bearer)
  }
  const close = async () => {
    await Promise.allSettled(sessions.values().map((served) => served.transport.close()))
  }
  return { handle, close }
}

/** Serves a request that may initialize a session; anything else leaves no session behind. */
async function open(deps: RouteDeps, sessions: Sessions, request: IncomingMessage, response: ServerResponse, bearer: string | undefined): Promise<void> {
  const { ctx, config } = deps
  if (!sessions.claim()) {
    response.setHeader('retry-after', '60')
    return reply(response, 503, `all ${config.maxSessions} MCP sessions have a request in progress; retry later, or raise maxSessions in the mcp config of dsh`, -32000)
  }
  const session = { transport: 'http' as const, id: '', ...deps.placed(bearer) }
  const server = createMcpServer({ tools: ctx.tools, session, instructions: ctx.get('systemPrompt')?.render() })
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    maxRequestBodySize: config.maxMessageBytes,
    onsessioninitialized: (id) => {
      session.id = id
      admit(deps, sessions, id, { transport, bearer }, response, () => void server.close())
    },
  })
  transport.onclose = () => {
    if (session.id === '' || !sessions.delete(session.id)) return
    deps.logger.info('session %s closed by the client (%d active)', session.id, sessions.size)
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

/** Enters a freshly initialized session in the table, which ends it when idle or evicted. */
function admit({ ctx, config, logger }: RouteDeps, sessions: Sessions, id: string, served: Served, response: ServerResponse, closeServer: () => void): void {
  sessions.add(id, served, (reason) => {
    logger.info('session %s closed: %s (%d active)', id, reason === 'idle' ? `idle for ${config.sessionIdleSeconds} s` : `evicted for a new session, ${config.maxSessions} at most`, sessions.size)
    closeServer()
    ctx.emit('mcp/session-closed', id, reason)
  }, served.bearer)
  if (response.closed) sessions.end(id)
  else response.once('close', () => sessions.end(id))
  logger.info('session %s opened (%d active)', id, sessions.size)
}
