import type { Context } from 'cordis'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { createMcpServer } from './server'

/**
 * Serves one client on stdin/stdout: the whole process is one MCP session, hence one policy owner.
 * stdout carries protocol frames only; everything else this plugin says goes to `ctx.logger`.
 */
export function serveStdio(ctx: Context): void {
  const session = { transport: 'stdio' as const }
  ctx.effect(async () => {
    const server = createMcpServer({ tools: ctx.tools, session, instructions: ctx.get('systemPrompt')?.render() })
    // The SDK transport never notices end of input; a client that hangs up closes our stdin.
    const onEnd = () => {
      ctx.logger('mcp').info('stdin closed by the client')
      void server.close()
      ctx.emit('mcp/disconnect', 'stdio')
    }
    process.stdin.once('end', onEnd)
    await server.connect(new StdioServerTransport())
    ctx.logger('mcp').info('serving MCP over stdio, tools: %s', ctx.tools.list().map((tool) => tool.name).join(', ') || '(none)')
    return async () => {
      process.stdin.off('end', onEnd)
      await server.close()
    }
  }, 'mcp stdio')
}
