import type { Context } from 'cordis'
import type {} from '@deepseek-ai/dsh-tools'
import { Config, type McpConfigInput } from './config'
import type {} from './handover'
import { serveStdio } from './stdio'

export { Config, DEFAULT_MAX_MESSAGE_BYTES, type McpConfig, type McpConfigInput } from './config'
export { createMcpServer, ERROR_META_KEY, type McpServerOptions } from './server'
export { allowedHostnames, isLoopback, rejectForeignHost } from './host-check'
export { TOKEN_ENV } from './auth'
export { LineTransport } from './stdio'
export type { StdioHandover, StdioStreams } from './handover'
export type { ToolRegistry } from '@deepseek-ai/dsh-tools'

declare module 'cordis' {
  interface Events {
    /** The HTTP endpoint is accepting sessions at `url` (the real port when `port: 0`). */
    'mcp/listening'(url: string): void
    /** An HTTP session ended: its client sent DELETE, it sat idle too long, or a new session evicted it. */
    'mcp/session-closed'(id: string, reason: 'client' | 'idle' | 'evicted'): void
    /** The stdio client hung up (stdin ended): a host usually exits now. */
    'mcp/disconnect'(transport: 'stdio'): void
  }
}

export const name = 'dsh-mcp'
export const inject = ['tools']

export async function apply(ctx: Context, input: McpConfigInput): Promise<void> {
  const config = Config.parse(input)
  if (config.transport === 'http') {
    // Imported for this transport only: the SDK's Streamable HTTP stack pulls in hono, node:http and
    // undici, a fifth of a stdio cold start.
    const { serveHttp } = await import('./http')
    return serveHttp(ctx, config)
  }
  // Under the Cordis loader, answer the client's initialize only once every entry has loaded, so the
  // tool list and the instructions are complete. `loader.await()` re-polls until nothing is loading;
  // the loader's own `inject: { loader: { await: true } }` hold is not used: it is never released
  // when the last entry to finish had first waited for a service (loader 1.0.0-beta.5).
  const loader = ctx.get('loader') as { await(): Promise<void> } | undefined
  if (loader === undefined) return serveStdio(ctx, config)
  let active = true
  ctx.effect(() => () => { active = false }, 'mcp stdio: wait for the loader')
  loader.await()
    .then(() => { if (active) serveStdio(ctx, config) })
    .catch((error: unknown) => ctx.logger('mcp').error(error))
}

export default { name, inject, Config, apply }
