import { FsError } from '@deepseek-ai/dsh-fs'
import tools, { defineTool } from '@deepseek-ai/dsh-tools'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Context } from 'cordis'
import { z } from 'zod'
import { createMcpServer, type McpServerOptions } from '../src/index'

/** One MCP server from `options`, with the official client connected to it in memory. */
export async function connectInMemory(options: McpServerOptions): Promise<Client> {
  const server = createMcpServer(options)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'test', version: '0.0.0' })
  await client.connect(clientSide)
  return client
}

/**
 * A real tool runtime with two small tools that make the bridge observable: `whoami` tells which
 * policy owner (session object) a call ran under (and its workspace, if it has one), `fail` throws a coded FsError like a file tool.
 */
export async function toolContext(): Promise<Context> {
  const ctx = new Context()
  await ctx.plugin(tools)
  const owners = new WeakMap<object, number>()
  let next = 0
  await ctx.plugin({
    inject: ['tools', 'systemPrompt'],
    apply(inner: Context) {
      inner.tools.register(defineTool({
        name: 'whoami',
        title: 'Who am I',
        description: 'Names the session this call belongs to.',
        annotations: { readOnlyHint: true, openWorldHint: false },
        inputSchema: z.object({ note: z.string().optional().describe('Ignored.') }),
        execute: (_input, exec) => {
          const session = exec.agent?.session
          if (session === undefined) return 'no session'
          if (!owners.has(session)) owners.set(session, ++next)
          const workspace = (session as { workspace?: string }).workspace
          return `session ${owners.get(session)}${workspace === undefined ? '' : ` in workspace ${workspace}`}`
        },
      }))
      inner.tools.register(defineTool({
        name: 'fail',
        title: 'Fail',
        description: 'Fails like an edit of an unread file.',
        // No hints on purpose: the bridge must then send the title alone.
        annotations: {},
        inputSchema: z.object({}),
        execute: () => {
          throw new FsError('FS_NOT_OBSERVED', 'a.txt has not been read in this session: read the file, then retry')
        },
      }))
      inner.systemPrompt.section({ name: 'rules', order: 1, text: 'Read a file before you edit it.' })
    },
  })
  return ctx
}
