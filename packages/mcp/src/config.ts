import { z } from 'zod'

export const Config = z.object({
  transport: z.enum(['stdio', 'http']).default('stdio')
    .describe('stdio: one client on stdin/stdout. http: Streamable HTTP, one session per client.'),
  host: z.string().min(1).default('127.0.0.1').describe('Interface the HTTP server binds to.'),
  port: z.number().int().min(0).max(65535).default(3000).describe('HTTP port; 0 picks a free one.'),
  path: z.string().startsWith('/').default('/mcp').describe('HTTP endpoint of the Streamable HTTP transport.'),
}).strict().prefault({})

export type McpConfig = z.output<typeof Config>
export type McpConfigInput = z.input<typeof Config>
