import type { Context } from 'cordis'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Readable, Writable } from 'node:stream'
import type { McpConfig } from './config'
import { LineReader, type Line } from './line-reader'
import { createMcpServer } from './server'

/** JSON-RPC "Invalid Request": the message was not taken in at all. */
const INVALID_REQUEST = -32600
const BLANK = /^\s*$/

/**
 * Newline-delimited JSON-RPC on a pair of streams, in place of the SDK's stdio transport: that one
 * closes itself (and pauses stdin, so its end is never seen) on the first line over 10 MiB. Here
 * a line over `maxBytes` is dropped while it streams past and its request is answered with an
 * error naming the limit; the session goes on.
 */
export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  readonly #reader: LineReader
  #closed = false

  constructor(private readonly input: Readable, private readonly output: Writable, private readonly maxBytes: number, private readonly holdBack?: (message: JSONRPCMessage) => boolean) {
    this.#reader = new LineReader(maxBytes)
  }

  #onData = (chunk: Buffer) => {
    for (const line of this.#reader.push(chunk)) this.#receive(line)
  }

  #onError = (error: Error) => this.onerror?.(error)

  async start(): Promise<void> {
    // resume(): a handed-over stdin is paused, with what the host read from it put back in front.
    this.input.on('data', this.#onData).on('error', this.#onError).resume()
  }

  #receive(line: Line): void {
    if (line.kind === 'oversize') return this.#refuse(line)
    if (BLANK.test(line.text)) return
    let message: JSONRPCMessage
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line.text))
    } catch (error) {
      this.onerror?.(new Error(`dropped a line that is not a JSON-RPC message: ${(error as Error).message.split('\n')[0]}`))
      return
    }
    this.onmessage?.(message)
  }

  #refuse(line: Extract<Line, { kind: 'oversize' }>): void {
    const message = `the MCP message of ${line.bytes} bytes is over dsh's limit of ${this.maxBytes} bytes (maxMessageBytes in its mcp config) and was discarded; send less per call, e.g. write the start of a large file, then add the rest with edit calls`
    this.onerror?.(new Error(message))
    // A notification gets no answer; a request, or a line too broken to tell, gets one.
    if (line.request && line.id === undefined) return
    void this.send({ jsonrpc: '2.0', id: line.id ?? null, error: { code: INVALID_REQUEST, message, data: { maxMessageBytes: this.maxBytes, bytes: line.bytes } } } as unknown as JSONRPCMessage)
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || this.holdBack?.(message)) return Promise.resolve()
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.output.once('drain', resolve)
    })
  }

  /** Stops reading without pausing the input: its end must still reach whoever waits for it. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.input.off('data', this.#onData).off('error', this.#onError)
    this.onclose?.()
  }
}

/** How long after `initialize` a client that has not listed the tools gets a warning in the log. */
const UNLISTED_WARNING_MS = 10_000

/**
 * Serves one client on stdin/stdout: the whole process is one MCP session, hence one policy owner (`stdio`).
 * stdout carries protocol frames only; everything else this plugin says goes to `ctx.logger`.
 * The end of stdin (the client hung up) always emits `mcp/disconnect`, whatever state the
 * session is in, so the host can exit. The streams are, in this order: the arguments, those of a
 * host's `mcpStdio` handover (see handover.ts), process.stdin and process.stdout.
 *
 * A client that starts dsh but never lists its tools (it gave up waiting, or its model went ahead
 * without them) leaves a warning in the log, so a silent run has a visible cause.
 */
export function serveStdio(ctx: Context, config: McpConfig, input?: Readable, output?: Writable): void {
  // One client per process, so one owner, under the same key on every start: with a persistent
  // ledger, what the client read before a restart of dsh still counts after it.
  const session = { transport: 'stdio' as const, owner: 'stdio' }
  const logger = ctx.logger('mcp')
  ctx.effect(async () => {
    const { from, to, holdBack } = streams(ctx, input, output)
    const listing = listingWatch(logger, () => server.getClientVersion())
    const server = createMcpServer({ tools: ctx.tools, session, instructions: ctx.get('systemPrompt')?.render(), onListTools: listing.listed })
    server.oninitialized = listing.initialized
    let ended = false
    const onEnd = () => {
      if (ended) return
      ended = true
      listing.ended()
      void server.close()
      ctx.emit('mcp/disconnect', 'stdio')
    }
    from.once('end', onEnd).once('close', onEnd)
    const transport = new LineTransport(from, to, config.maxMessageBytes, holdBack)
    transport.onerror = (error) => logger.warn(error.message)
    await server.connect(transport)
    if (from.readableEnded) onEnd()
    const names = ctx.tools.list().map((tool) => tool.name)
    if (names.length > 0) logger.info('serving MCP over stdio, tools: %s', names.join(', '))
    else logger.info('serving MCP over stdio; no tool is registered yet')
    return async () => {
      listing.quiet()
      from.off('end', onEnd).off('close', onEnd)
      await server.close()
    }
  }, 'mcp stdio')
}

/** The streams to serve: the arguments, else a host's `mcpStdio` handover, else the process's own. */
function streams(ctx: Context, input: Readable | undefined, output: Writable | undefined) {
  const handed = input === undefined && output === undefined ? ctx.get('mcpStdio')?.take() : undefined
  return { from: input ?? handed?.input ?? process.stdin, to: output ?? handed?.output ?? process.stdout, holdBack: handed?.holdBack }
}

/**
 * Whether the client listed the tools: logged when it does, warned about when it has not
 * `UNLISTED_WARNING_MS` after initializing, and again when stdin ends without it.
 */
function listingWatch(logger: ReturnType<Context['logger']>, client: () => { name: string; version: string } | undefined) {
  let listed = false
  let warning: NodeJS.Timeout | undefined
  const clientName = () => {
    const version = client()
    return version === undefined ? 'the client' : `client ${version.name} ${version.version}`
  }
  return {
    listed: () => {
      if (listed) return
      listed = true
      clearTimeout(warning)
      logger.info('%s listed the tools', clientName())
    },
    initialized: () => {
      if (listed) return
      warning = setTimeout(() => {
        logger.warn('%s has not listed the tools %d s after initializing: its model cannot see them', clientName(), UNLISTED_WARNING_MS / 1000)
      }, UNLISTED_WARNING_MS).unref()
    },
    ended: () => {
      clearTimeout(warning)
      if (listed) logger.info('stdin closed by the client')
      else logger.warn('stdin closed by %s, which never listed the tools: its model did not see them', clientName())
    },
    quiet: () => clearTimeout(warning),
  }
}
