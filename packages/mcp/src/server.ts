import type { ToolRegistry, ToolResult } from '@deepseek-ai/dsh-tools'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { createRequire } from 'node:module'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

/** Where an error code travels in a `tools/call` result: MCP has no field for it, `_meta` is the extension point. */
export const ERROR_META_KEY = 'ai.deepseek.dsh/error'

/**
 * What one MCP server instance needs from the host. `session` is the policy owner of every call
 * this server forwards: one object per MCP session, never shared, so observations never leak.
 */
export interface McpServerOptions {
  tools: ToolRegistry
  session: object
  /** The rendered system prompt, sent as the server's instructions when non-empty. */
  instructions?: string | undefined
  /** Told at every `tools/list`: a host logs whether its client ever looked at the tools. */
  onListTools?: () => void
}

/**
 * A low-level SDK `Server` that serves `ctx.tools`. The low-level class is used on purpose:
 * `McpServer` wants zod shapes and would convert them again, while `ctx.tools.list()` already
 * hands out the JSON Schemas the model must see.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { tools, session } = options
  // Taken once: each call then reaches the registry without passing cordis' tracing proxy.
  const execute = tools.executor()
  const server = new Server(
    { name: 'dsh', version },
    { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  )

  // `title` is also given inside `annotations`, where clients of protocol versions before 2025-06-18 look.
  server.setRequestHandler(ListToolsRequestSchema, () => {
    options.onListTools?.()
    return {
      tools: tools.list().map((listing): Tool => ({
        name: listing.name,
        title: listing.title,
        description: listing.description,
        inputSchema: listing.inputSchema as Tool['inputSchema'],
        annotations: { title: listing.title, ...listing.annotations },
      })),
    }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const result = await execute({
      name: request.params.name,
      arguments: request.params.arguments ?? {},
      callId: `mcp_${String(extra.requestId)}`,
      signal: extra.signal,
      agent: { session },
    })
    return {
      content: contentOf(result),
      isError: result.isError,
      // The message is already the text above: clients that forward `_meta` to the model would repeat it.
      ...(result.error === undefined ? {} : { _meta: { [ERROR_META_KEY]: { code: result.error.code } } }),
    }
  })
  return server
}

/** A result's text items, then its images as they are: `image` is an MCP content type every supported client reads. */
function contentOf(result: ToolResult): CallToolResult['content'] {
  const images = (result.images ?? []).map((image) => ({ type: 'image' as const, data: image.data, mimeType: image.mimeType }))
  return [...result.content.map((part) => ({ type: 'text' as const, text: part.text })), ...images]
}
