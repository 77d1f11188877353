import { type Context, Service } from 'cordis'
import { randomUUID } from 'node:crypto'
import { closestName, parseArguments } from './arguments'
import { foreignCall } from './foreign'
import { errorResult, resultFromError, runtimeRefused, textResult } from './errors'
import { ConcurrencyGate } from './gate'
import { DATA_WORDS, type RuntimeRefusal, type RuntimeWords } from './refusal'
import { toInputSchema } from './schema'
import { isRefusal, type ToolAnnotations, type ToolCall, type ToolDefinition, type ToolExecution, type ToolInputSchema, type ToolListing, type ToolOutput, type ToolResult } from './types'

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
  interface Events {
    /**
     * Wraps every call whose tool exists and whose arguments are valid, around the tool's
     * `execute`. A hook sees the execution and the parsed input; it may return its own result
     * (or throw, e.g. a `ToolError`) without calling `next()` to refuse the call, or await `next()`
     * to time or audit it. Nothing is awaited by cordis, so hooks should be async.
     */
    'tools/execute'(exec: ToolExecution, input: unknown, next: () => Promise<ToolResult>): Promise<ToolResult>
  }
}

interface Entry {
  definition: ToolDefinition
  /** Built on the first `list()`: a JSON Schema per tool is work a process that never lists need not do at start. */
  listing?: ToolListing
}

function listingOf(entry: Entry): ToolListing {
  if (entry.listing !== undefined) return entry.listing
  const { definition } = entry
  const { name } = definition
  entry.listing = {
    name,
    title: typeof definition.title === 'string' && definition.title.length > 0 ? definition.title : name,
    description: definition.description,
    annotations: knownHints(definition.annotations),
    inputSchema: toInputSchema(definition.inputSchema),
  }
  return entry.listing
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * `ctx.tools`: the tool registry and the one path every tool call takes. `execute` never throws for
 * a failure of the call: it answers with an error result, which is what a model loop or an MCP
 * server forwards as is.
 */
export class ToolRegistry extends Service {
  // Plain fields, not `#private`: service methods run with `this` bound to cordis' tracing proxy.
  entries = new Map<string, Entry>()
  gate = new ConcurrencyGate()
  /** The words of the runtime's own refusals, as the tool families installed them; the last one speaks. */
  words: RuntimeWords[] = []
  /**
   * The call path, made once from the instance itself. Every field or method a caller reaches
   * through `ctx.tools` passes cordis' tracing proxy (a few proxies and contexts are built per
   * access), so the per-call work reads nothing through it: see `executor()`.
   */
  readonly calls: { execute(call: ToolCall): Promise<ToolResult> }

  constructor(ctx: Context) {
    super(ctx, 'tools')
    // `this` is the instance here, not a proxy. The waterfall is read once: an event's listeners
    // are looked up on each call, and which context emits does not matter (no `thisArg`).
    const waterfall = ctx.waterfall
    const { entries, gate, words } = this
    const runtime: Runtime = {
      unknownTool: (name, args) => this.unknownTool(name, args),
      words: () => words.at(-1) ?? DATA_WORDS,
    }
    this.calls = {
      execute: (call) => executeCall(call, entries, gate, (exec, input, run) => waterfall('tools/execute', exec, input, run), runtime),
    }
  }

  /**
   * Adds a tool. The registration belongs to the calling plugin: it goes away when that plugin is
   * disposed, or earlier through the returned disposer. A second tool with a taken name is refused.
   */
  register<S extends ToolInputSchema>(definition: ToolDefinition<S>): () => void {
    const { name } = definition
    if (!TOOL_NAME.test(name)) throw new TypeError(`invalid tool name ${JSON.stringify(name)}: use 1-64 letters, digits, _ or -`)
    if (this.entries.has(name)) throw new Error(`a tool named ${name} is already registered`)
    const entry: Entry = { definition: definition as unknown as ToolDefinition }
    // `this.ctx` is the caller's context here (cordis traces service calls), so the effect is
    // attached to the registering plugin's fiber and cleaned up with it.
    return this.ctx.effect(() => {
      this.entries.set(name, entry)
      return () => {
        if (this.entries.get(name) === entry) this.entries.delete(name)
      }
    }, `tool ${name}`)
  }

  /**
   * Every registered tool, ordered by name: plugins register in whatever order their dependencies
   * come up, and a client must see the same list (and a model the same prompt) on every start.
   */
  list(): ToolListing[] {
    return [...this.entries.values()]
      .map(listingOf)
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((listing) => ({ ...listing, annotations: { ...listing.annotations } }))
  }

  /**
   * Words the runtime's own refusals (an unknown tool, invalid arguments, an aborted call) in
   * `words`, for as long as the calling plugin lives. The tool families install dsh-tool-text's;
   * without any, a refusal reads as its data.
   */
  useWords(words: RuntimeWords): () => void {
    const installed = this.words
    return this.ctx.effect(() => {
      installed.push(words)
      return () => {
        const at = installed.lastIndexOf(words)
        if (at >= 0) installed.splice(at, 1)
      }
    }, 'tool runtime words')
  }

  /** The registered definition, for hosts that schedule calls themselves (e.g. by concurrency). */
  get(name: string): ToolDefinition | undefined {
    return this.entries.get(name)?.definition
  }

  execute(call: ToolCall): Promise<ToolResult> {
    return this.calls.execute(call)
  }

  /**
   * `execute` as a plain function, for a host that makes many calls (an MCP server): calling it
   * passes no cordis proxy. Take it while `tools` is injected; it serves the registry's current
   * tools for as long as the registry lives.
   */
  executor(): (call: ToolCall) => Promise<ToolResult> {
    return this.calls.execute
  }

  /** The refusal of a call of a tool that is not registered: a foreign name is mapped to the dsh tool and its arguments. */
  unknownTool(name: string, args?: unknown): RuntimeRefusal {
    const foreign = foreignCall(name, args, [...this.entries.values()].map((entry) => entry.definition))
    if (foreign !== undefined) return { kind: 'foreign-tool', name, call: foreign }
    const names = this.list().map((listing) => listing.name)
    const suggestion = closestName(name, names)
    return { kind: 'unknown-tool', name, ...(suggestion === undefined ? {} : { suggestion }), available: names }
  }
}

type Wrap = (exec: ToolExecution, input: unknown, run: () => Promise<ToolResult>) => Promise<ToolResult>

/** What a call needs of the registry besides its tools: the refusal of an unknown name, and the words of its refusals. */
interface Runtime {
  unknownTool(name: string, args?: unknown): RuntimeRefusal
  words(): RuntimeWords
}

/** One call, start to end: never throws for a failure of the call, it answers with an error result. */
async function executeCall(call: ToolCall, entries: ReadonlyMap<string, Entry>, gate: ConcurrencyGate, wrap: Wrap, runtime: Runtime): Promise<ToolResult> {
  const signal = call.signal ?? new AbortController().signal
  const exec: ToolExecution = {
    callId: call.callId ?? `call_${randomUUID()}`,
    name: call.name,
    signal,
    ...(call.agent === undefined ? {} : { agent: call.agent }),
  }
  try {
    throwIfAborted(signal, call.name)
    const entry = entries.get(call.name)
    if (entry === undefined) return resultFromError(runtimeRefused(runtime.unknownTool(call.name, call.arguments)), runtime.words())
    const { definition } = entry
    const input = parseArguments(definition, call.arguments)
    const run = async (): Promise<ToolResult> => {
      throwIfAborted(signal, call.name)
      return rendered(definition, await definition.execute(input as Record<string, unknown>, exec), input)
    }
    return await gate.run(call.agent?.session, definition.concurrency ?? 'exclusive', async () => {
      try {
        return await wrap(exec, input, run)
      } catch (error) {
        // A call that fails once its signal has fired failed because of it, whatever the tool threw
        // (the signal's reason, or what the abort broke): it is the runtime's ABORTED refusal.
        return resultFromError(signal.aborted ? runtimeRefused({ kind: 'aborted', tool: call.name }, signal.reason) : error, runtime.words())
      }
    })
  } catch (error) {
    return resultFromError(error, runtime.words())
  }
}

/** The render step: what `execute` returned, as the result the model reads. */
function rendered(definition: ToolDefinition, data: unknown, input: unknown): ToolResult {
  const output = definition.render === undefined ? data as ToolOutput : definition.render(data as ToolOutput, input as Record<string, unknown>)
  if (typeof output !== 'string') return output
  return isRefusal(data) ? errorResult(output, data.code) : textResult(output)
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/** The boolean hints of `annotations`, so that a stray key or value from untyped code never reaches a client. */
function knownHints(annotations: ToolAnnotations | undefined): ToolAnnotations {
  const hints: ToolAnnotations = {}
  for (const hint of HINTS) {
    if (typeof annotations?.[hint] === 'boolean') hints[hint] = annotations[hint]
  }
  return hints
}

function throwIfAborted(signal: AbortSignal, name: string): void {
  if (signal.aborted) throw runtimeRefused({ kind: 'aborted', tool: name }, signal.reason)
}
