import type { Context } from 'cordis'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { McpConfig } from './config'

/** JSON-RPC code the MCP SDK uses for an unknown session: clients answer it by initializing again. */
export const SESSION_NOT_FOUND = -32001

/** What every HTTP route of the MCP plugin works with. */
export interface RouteDeps {
  ctx: Context
  config: McpConfig
  logger: ReturnType<Context['logger']>
  /** What a session of this bearer carries besides its owner (its workspace, if its token names one). */
  placed(bearer: string | undefined): { workspace?: string }
}

/** Serves a request that passed the Host check and the bearer token; `close` ends what it keeps. */
export interface HttpRoute {
  handle(request: IncomingMessage, response: ServerResponse, bearer: string | undefined): Promise<void>
  close(): Promise<void>
}

/** A JSON-RPC error body, which is what MCP clients expect even for transport-level refusals. */
export function reply(response: ServerResponse, status: number, message: string, code = -32600): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}
