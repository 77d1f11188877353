import type { Context } from 'cordis'
import { rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolveToken, TOKEN_ENV, type TokenDirectory, tokenDirectory, writeTokenFile, type BearerToken } from './auth'
import { agentTokens, type McpConfig } from './config'
import { bearerGate } from './http-auth'
import { type HttpRoute, reply } from './http-reply'
import { sessionRoute } from './http-sessions'
import { statelessRoute } from './http-stateless'
import { allowedHostnames, isLoopback, rejectForeignHost } from './host-check'
import { bearers } from './owners'

type Logger = ReturnType<Context['logger']>

/** Where a generated token was written; made once the port is bound, so a failed start leaves none. */
interface TokenPlace {
  dir?: TokenDirectory
  file?: string
}

/**
 * Streamable HTTP: every request passes the Host/Origin allow-list, then the bearer token, then
 * reaches its route: one SDK server per session (`owner: session`, see http-sessions.ts) or per
 * request (`owner: token`, see http-stateless.ts). Resolves once the socket listens; a bind
 * failure rejects, which fails the plugin.
 */
export async function serveHttp(ctx: Context, config: McpConfig): Promise<void> {
  const logger = ctx.logger('mcp')
  refuseOpenNetwork(config)
  const token = config.auth === 'token' ? resolveToken(config.token) : undefined
  const { accepted, placed } = bearers(token?.value, agentTokens(config.tokens))
  const place: TokenPlace = {}
  const gate = bearerGate(token, accepted, logger, () => place.file)
  const deps = { ctx, config, logger, placed }
  const route = config.owner === 'token' ? statelessRoute(deps) : sessionRoute(deps)
  const allowed = allowedHostnames(config.host, config.allowedHosts ?? [])
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (url.pathname !== config.path) return reply(response, 404, `no MCP endpoint at ${url.pathname}; use ${config.path}`)
    const refusal = rejectForeignHost(request, allowed)
    if (refusal !== undefined) return reply(response, 403, refusal)
    const passed = gate(request, response)
    if (passed !== 'refused') return route.handle(request, response, passed.bearer)
  }
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.warn(error)
      if (!response.headersSent) reply(response, 500, 'internal error')
    })
  })
  await ctx.effect(() => start({ ctx, config, logger }, http, route, token, place), 'mcp http')
}

function refuseOpenNetwork(config: McpConfig): void {
  if (config.auth === 'none' && !isLoopback(config.host)) {
    throw new Error(`refusing auth: none on host ${config.host}, which is not loopback: anyone on that network would get the file tools; drop auth: none (the default auth: token needs a bearer token) or bind host: 127.0.0.1`)
  }
}

/** Binds the port, writes a generated token's file, says where to connect; returns the disposer. */
async function start({ ctx, config, logger }: { ctx: Context; config: McpConfig; logger: Logger }, http: Server, route: HttpRoute, token: BearerToken | undefined, place: TokenPlace) {
  await listen(http, config.port, config.host)
  const { port } = http.address() as AddressInfo
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${config.path}`
  try {
    if (token?.source === 'generated') await writeGenerated(place, port, token.value)
  } catch (error) {
    await closeHttp(http)
    if (place.dir?.own) await rm(place.dir.dir, { recursive: true, force: true })
    throw error
  }
  logger.info('serving MCP over Streamable HTTP at %s', url)
  if (token === undefined) logger.warn('auth: none: every local user can call the file tools at %s', url)
  else if (place.file !== undefined) logger.info('bearer token %s (also in %s, mode 0600)', token.value, place.file)
  else logger.info('bearer token from %s', token.source === 'env' ? TOKEN_ENV : 'the mcp config')
  ctx.emit('mcp/listening', url)
  return async () => {
    await route.close()
    http.closeAllConnections()
    await closeHttp(http)
    if (place.file !== undefined) await rm(place.file, { force: true })
    // A directory this start made for itself (`mkdtemp`) goes with its one file.
    if (place.dir?.own) await rm(place.dir.dir, { recursive: true, force: true })
  }
}

async function writeGenerated(place: TokenPlace, port: number, value: string): Promise<void> {
  place.dir = await tokenDirectory()
  place.file = await writeTokenFile(place.dir.dir, port, value)
}

function closeHttp(http: Server): Promise<void> {
  return new Promise<void>((resolve) => http.close(() => resolve()))
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
