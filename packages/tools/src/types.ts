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

export interface ToolResult {
  content: ToolTextContent[]
  isError: boolean
  /** Present on failures only; `code` is kept from an `FsError` or a `ToolError`. */
  error?: { code?: string; message: string }
}

/** What the model reads from a call: the text, or a full result when a tool shapes errors itself. */
export type ToolOutput = string | ToolResult

/**
 * A call the tool declined, as data: the code hosts branch on, and the reason the tool's `render`
 * turns into the model's text. The registry answers it as an error result with this code.
 */
export interface ToolRefusal<R = unknown> {
  readonly refused: R
  readonly code: string
}

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

/**
 * A tool. `execute` does the work and returns data: a value of its own, or a `ToolRefusal` made by
 * `refuse()`. `render` is the one step that turns that data into what the model reads; a tool
 * without it returns the text itself (`D` is then `ToolOutput`).
 */
export interface ToolDefinition<S extends ToolInputSchema = ToolInputSchema, D = ToolOutput> {
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
  execute(input: z.output<S>, exec: ToolExecution): D | Promise<D>
  /**
   * The model's text for what `execute` returned. For a refusal, a string becomes an error result
   * with the refusal's code. Pure: it runs after the work, and a throw is answered as an error.
   */
  render?(data: D, input: z.output<S>): ToolOutput
}

/** A definition as written: when `execute` returns data of its own (not text), `render` is required. */
export type ToolDefinitionOf<S extends ToolInputSchema, D> = ToolDefinition<S, D>
  & ([D] extends [ToolOutput] ? unknown : { render(data: D, input: z.output<S>): ToolOutput })

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

/**
 * Identity helper that keeps `execute`'s input typed by the schema, and its data typed for `render`.
 * The result is the registry's view of the tool: its data type no longer matters outside it.
 */
export function defineTool<S extends ToolInputSchema, D = ToolOutput>(definition: ToolDefinitionOf<S, D>): ToolDefinition<S> {
  return definition as unknown as ToolDefinition<S>
}

const refusalMarker = Symbol.for('@deepseek-ai/dsh-tools/ToolRefusal')

/** A refusal as data, for `execute` to return; its `render` names the reason and the step that works. */
export function refuse<R>(code: string, refused: R): ToolRefusal<R> {
  return Object.defineProperty({ refused, code }, refusalMarker, { value: true })
}

export function isRefusal(value: unknown): value is ToolRefusal {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[refusalMarker] === true
}

/** The session's working directory, when the host gave it one. */
export function sessionCwd(exec: Pick<ToolExecution, 'agent'>): string | undefined {
  const cwd = (exec.agent?.session as { cwd?: unknown } | undefined)?.cwd
  return typeof cwd === 'string' && cwd.length > 0 ? cwd : undefined
}
