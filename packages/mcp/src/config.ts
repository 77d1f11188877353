import { z } from 'zod'

/** 10 MiB: the bound the MCP SDK's own stdio reader had, now answered instead of fatal. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024

/** A name a session can carry to route its calls (e.g. to a sandbox of its own): letters, digits, `_`, `.`, `-`. */
const WORKSPACE = /^[A-Za-z0-9_.-]{1,128}$/

/** A further agent's bearer token: the token alone, or with the workspace its calls belong to. */
const AgentToken = z.union([
  z.string().min(16),
  z.object({
    token: z.string().min(16),
    workspace: z.string().regex(WORKSPACE, 'a workspace is 1-128 letters, digits, _, . or -')
      .describe('Carried by every call made with this token; a provider that routes by workspace (dsh-fs-e2b `workspaces`) serves it from there.'),
  }).strict(),
])

export const Config = z.object({
  transport: z.enum(['stdio', 'http']).default('stdio')
    .describe('stdio: one client on stdin/stdout. http: Streamable HTTP, one session per client.'),
  maxMessageBytes: z.number().int().min(1024).default(DEFAULT_MAX_MESSAGE_BYTES)
    .describe('Largest JSON-RPC message accepted; a larger one is answered with an error naming this limit.'),
  host: z.string().min(1).default('127.0.0.1').describe('Interface the HTTP server binds to.'),
  port: z.number().int().min(0).max(65535).default(3000).describe('HTTP port; 0 picks a free one.'),
  path: z.string().startsWith('/').default('/mcp').describe('HTTP endpoint of the Streamable HTTP transport.'),
  auth: z.enum(['token', 'none']).default('token')
    .describe('token: every HTTP request needs `Authorization: Bearer <token>`. none: no check, loopback binds only.'),
  token: z.string().min(16).optional()
    .describe('The bearer token; default env DSH_MCP_TOKEN, else a random one per start, printed and written to a 0600 file.'),
  tokens: z.array(AgentToken).min(1).optional()
    .describe('More bearer tokens accepted besides token, one per agent: with owner: token each is its own owner. An entry { token, workspace } also names the workspace its calls belong to.'),
  owner: z.enum(['session', 'token']).default('session')
    .describe('Whose observations a call uses. session: each MCP session its own. token: every request with the same bearer token, whatever its session; the HTTP transport then keeps no sessions, so any replica can serve any request.'),
  allowedHosts: z.array(z.string().min(1)).optional()
    .describe('Host names (besides loopback and the bound address) that Host and Origin may carry.'),
  sessionIdleSeconds: z.number().positive().max(7 * 24 * 3600).default(1800)
    .describe('An HTTP session with no open request for this long is closed and its memory released.'),
  maxSessions: z.number().int().min(1).default(64)
    .describe("Most HTTP sessions at once; a new one evicts the least recently used idle session, its own token's first."),
}).strict().superRefine((config, issues) => {
  if (config.auth === 'none' && config.token !== undefined) {
    issues.addIssue({ code: 'custom', path: ['token'], message: 'a token is set but auth is none: remove one of them' })
  }
  if (config.auth === 'none' && config.tokens !== undefined) {
    issues.addIssue({ code: 'custom', path: ['tokens'], message: 'tokens are set but auth is none: remove one of them' })
  }
  if (config.owner === 'token' && (config.transport !== 'http' || config.auth !== 'token')) {
    issues.addIssue({ code: 'custom', path: ['owner'], message: 'owner: token needs transport: http with auth: token (over stdio the one client is always one owner)' })
  }
  const all = [...(config.token === undefined ? [] : [config.token]), ...agentTokens(config.tokens).map((agent) => agent.token)]
  if (new Set(all).size !== all.length) {
    issues.addIssue({ code: 'custom', path: ['tokens'], message: 'a token is listed twice: each agent needs its own' })
  }
}).prefault({})

export type McpConfig = z.output<typeof Config>
export type McpConfigInput = z.input<typeof Config>

/** The further tokens as `{ token, workspace? }`, whichever way each was written. */
export function agentTokens(tokens: McpConfig['tokens']): { token: string; workspace?: string }[] {
  return (tokens ?? []).map((entry) => (typeof entry === 'string' ? { token: entry } : entry))
}
