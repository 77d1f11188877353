import type { z } from 'zod'

/**
 * Who is calling. `session` is any object the host chooses (one per conversation, one per MCP
 * session…); its identity is what policies key their state on. It may carry a `cwd`.
 */
export interface ToolAgent {
  session: object
}

/** What a tool learns about the call it is running; fs tools pass the whole object as the actor. */
export interface ToolExecution {
  callId: string
  name: string
  signal: AbortSignal
  agent?: ToolAgent
}

export interface ToolTextContent {
  type: 'text'
  text: string
}

/** An image the model is shown, as MCP's `image` content item carries it. */
export interface ToolImageContent {
  type: 'image'
  /** The image's bytes, base64-encoded. */
  data: string
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mimeType: string
}

export interface ToolResult {
  content: ToolTextContent[]
  /**
   * Images shown after the text (a `read` of an image). A field of their own, so that every host
   * that only handles text keeps reading `content` as it did; an MCP server sends them as `image`
   * content items after the text ones.
   */
  images?: ToolImageContent[]
  isError: boolean
  /** Present on failures only; `code` is kept from an `FsError` or a `ToolError`. */
  error?: { code?: string; message: string }
}

/** A tool's `execute` returns the text for the model, or a full result when it shapes errors itself. */
export type ToolOutput = string | ToolResult

/**
 * How a tool may overlap with other calls of the same session: `shared` calls run side by side,
 * an `exclusive` call runs alone. The default is `exclusive`.
 */
export type ToolConcurrency = 'exclusive' | 'shared'

// A loose bound on purpose: tools are registered from many packages, each with its own object shape.
export type ToolInputSchema = z.ZodObject<z.ZodRawShape>

/**
 * What a call may do to the tool's environment, as MCP's `ToolAnnotations` hints say it. Clients
 * decide from them whether to ask the user first: Codex refuses a tool it would have to ask about
 * when it may not ask, and MCP's defaults for a missing hint are the worst case (not read-only,
 * destructive, not idempotent, open world). State every hint, and state it truthfully.
 */
export interface ToolAnnotations {
  /** The tool changes nothing in its environment. */
  readOnlyHint?: boolean
  /** A change may destroy or replace existing data (not only add). Meaningful when not read-only. */
  destructiveHint?: boolean
  /** Repeating a call with the same arguments has no further effect. Meaningful when not read-only. */
  idempotentHint?: boolean
  /** The tool reaches entities outside a closed domain (the web, other people's systems). */
  openWorldHint?: boolean
}

export interface ToolDefinition<S extends ToolInputSchema = ToolInputSchema> {
  /** Letters, digits, `_` and `-` (the intersection of what model APIs and MCP accept). */
  name: string
  /** A short human-readable name that clients show instead of `name`, e.g. `Read file`. */
  title: string
  description: string
  annotations: ToolAnnotations
  inputSchema: S
  concurrency?: ToolConcurrency
  /**
   * Names other harnesses give this tool (`read_file`, `Read`, …), optionally with arguments the
   * name implies (`view` is the editor's `{ command: 'view' }`). A call of such a name is not run:
   * it is answered with this tool and the call's arguments mapped to this tool's names.
   */
  foreignNames?: readonly ForeignName[]
  execute(input: z.output<S>, exec: ToolExecution): ToolOutput | Promise<ToolOutput>
}

/** A foreign name of a tool, and the arguments it implies. */
export type ForeignName = string | { name: string; args: Record<string, unknown> }

/** One entry of `ctx.tools.list()`: what a model or an MCP client is shown. */
export interface ToolListing {
  name: string
  /** The definition's title; the name for a tool registered without one (from untyped code). */
  title: string
  description: string
  /** The definition's hints, only those given; `{}` leaves every hint to the client's default. */
  annotations: ToolAnnotations
  /** JSON Schema of the arguments, `additionalProperties: false`. */
  inputSchema: Record<string, unknown>
}

/** The argument of `ctx.tools.execute`. */
export interface ToolCall {
  name: string
  /** The model's arguments; `undefined` is read as `{}`. */
  arguments?: unknown
  callId?: string
  signal?: AbortSignal
  agent?: ToolAgent
}

export interface PromptSection {
  name: string
  /** Sections render in ascending order; ties keep registration order. */
  order: number
  text: string
}

/** Identity helper that keeps `execute`'s input typed by the schema. */
export function defineTool<S extends ToolInputSchema>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition
}

/** The session's working directory, when the host gave it one. */
export function sessionCwd(exec: Pick<ToolExecution, 'agent'>): string | undefined {
  const cwd = (exec.agent?.session as { cwd?: unknown } | undefined)?.cwd
  return typeof cwd === 'string' && cwd.length > 0 ? cwd : undefined
}
