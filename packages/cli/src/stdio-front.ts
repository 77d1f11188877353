import { Readable, type Writable } from 'node:stream'
import type { StdioStreams } from '@deepseek-ai/dsh-mcp'
import type { Manifest } from './manifest'

/** Lines longer than this are not looked into: no answerable request is that long. */
const PARSE_LIMIT = 1024 * 1024
/** Past this many bytes waiting for the server, stdin is paused until the server takes over. */
const REPLAY_LIMIT = 64 * 1024 * 1024

interface Answered { method: 'initialize' | 'tools/list' }

export interface FrontLog {
  info(format: string, ...args: unknown[]): void
  warn(format: string, ...args: unknown[]): void
}

/**
 * The stdio session before the plugins have loaded. A client such as Codex sends its first model
 * request a few hundred milliseconds after `initialize`, with whatever tools it has by then, so the
 * two questions it asks first are answered at once from the build's manifest: `initialize` and
 * `tools/list`. Every line the client sends (those two included) is kept, and replayed to the real
 * server when the mcp plugin takes the streams (`take`, the `mcpStdio` handover): a `tools/call`
 * sent early waits and is then served. The server's own answers to the requests answered here are
 * held back and compared with what was sent; a tool list that differs is followed by
 * `notifications/tools/list_changed` (the front's `initialize` answer announces it), so the client
 * never keeps a wrong list.
 */
export class StdioFront {
  /** Lines (with their newline) the server has not seen yet. */
  #replay: Buffer[] = []
  #replayBytes = 0
  #partial: Buffer[] = []
  #partialBytes = 0
  /** An over-long line went by: from there on everything is replayed as it came, unparsed. */
  #raw = false
  #ended = false
  #initialized = false
  #listChangedSent = false
  readonly #answered = new Map<string, Answered>()
  #taken: StdioStreams | undefined
  #log: FrontLog | undefined
  readonly #notes: Array<[keyof FrontLog, string, unknown[]]> = []
  #counts = { answered: 0, replayed: 0 }
  #listed!: () => void
  /** Resolves once the client has its tool list from here (or hung up): the moment loading may take the thread. */
  readonly listed = new Promise<void>((resolve) => { this.#listed = resolve })

  constructor(private readonly manifest: Manifest, private readonly input: Readable = process.stdin, private readonly output: Writable = process.stdout) {
    input.on('data', this.#onData).once('end', this.#onEnd)
  }

  /** Where the front says what it did; what it said before is written now. */
  set log(log: FrontLog) {
    this.#log = log
    for (const [level, format, args] of this.#notes.splice(0)) log[level](format, ...args)
  }

  #note(level: keyof FrontLog, format: string, ...args: unknown[]): void {
    if (this.#log !== undefined) this.#log[level](format, ...args)
    else this.#notes.push([level, format, args])
  }

  #onEnd = () => {
    this.#ended = true
    this.#listed()
  }

  #onData = (chunk: Buffer) => {
    if (this.#raw) return this.#keep(chunk)
    let from = 0
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, newline + 1)
      from = newline + 1
      const line = this.#partialBytes === 0 ? piece : Buffer.concat([...this.#partial.splice(0), piece])
      this.#partialBytes = 0
      this.#receive(line)
    }
    if (from === chunk.length) return
    this.#partial.push(chunk.subarray(from))
    this.#partialBytes += chunk.length - from
    if (this.#partialBytes > PARSE_LIMIT) {
      this.#raw = true
      this.#keep(Buffer.concat(this.#partial.splice(0)))
      this.#partialBytes = 0
    }
  }

  #receive(line: Buffer): void {
    const message = parse(line)
    if (message?.method === 'initialize' && message.id !== undefined) {
      const requested = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion
      const { protocol, initialize } = this.manifest
      this.#answer(message.id, 'initialize', {
        protocolVersion: typeof requested === 'string' && protocol.supported.includes(requested) ? requested : protocol.latest,
        capabilities: { ...initialize.capabilities, tools: { ...initialize.capabilities.tools, listChanged: true } },
        serverInfo: initialize.serverInfo,
        ...(initialize.instructions === undefined ? {} : { instructions: initialize.instructions }),
      })
      this.#initialized = true
    } else if (message?.method === 'tools/list' && message.id !== undefined && this.#initialized) {
      this.#answer(message.id, 'tools/list', { tools: this.manifest.tools })
      this.#listed()
    }
    this.#keep(line)
  }

  #answer(id: unknown, method: Answered['method'], result: unknown): void {
    this.#answered.set(JSON.stringify(id), { method })
    this.#counts.answered++
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`)
  }

  #keep(bytes: Buffer): void {
    this.#replay.push(bytes)
    this.#replayBytes += bytes.length
    this.#counts.replayed++
    if (this.#replayBytes > REPLAY_LIMIT) this.input.pause()
  }

  /**
   * The handover (see `StdioHandover` in dsh-mcp): the same streams on every call. The server gets
   * stdin and stdout themselves, with the lines read so far put back at the front of stdin: the two
   * stream layers in between cost 3.7 % of a 4 KiB read's round trip (B11).
   */
  take(): StdioStreams {
    if (this.#taken !== undefined) return this.#taken
    this.input.off('data', this.#onData).off('end', this.#onEnd)
    const read = Buffer.concat([...this.#replay.splice(0), ...this.#partial.splice(0)])
    let input = this.input
    if (this.#ended) {
      input = Readable.from(read.length > 0 ? [read] : [])
    } else {
      // Paused until the transport resumes it, so no chunk goes by with no listener.
      this.input.pause()
      if (read.length > 0) this.input.unshift(read)
    }
    this.#taken = { input, output: this.output, holdBack: (message) => this.#heldBack(message) }
    if (this.#counts.answered > 0) {
      this.#note('info', 'answered %d request(s) from the manifest while loading; %d line(s) from the client replayed to the server', this.#counts.answered, this.#counts.replayed)
    }
    return this.#taken
  }

  /** Whether `message` is the server's answer to a request the front already answered (then compared and dropped). */
  #heldBack(message: Message): boolean {
    if (this.#answered.size === 0 || message.method !== undefined || message.id === undefined) return false
    const key = JSON.stringify(message.id)
    const answered = this.#answered.get(key)
    if (answered === undefined) return false
    this.#answered.delete(key)
    this.#compare(answered.method, message)
    return true
  }

  #compare(method: Answered['method'], message: Message): void {
    if (message.error !== undefined) {
      this.#note('warn', 'answered %s from the manifest, but the server refused it: %s', method, JSON.stringify(message.error))
      return
    }
    const result = message.result as Record<string, unknown>
    if (method === 'initialize') {
      const { capabilities, serverInfo, instructions } = this.manifest.initialize
      if (JSON.stringify([capabilities, serverInfo, instructions]) !== JSON.stringify([result.capabilities, result.serverInfo, result.instructions])) {
        this.#note('warn', 'the manifest\'s initialize answer differs from the server\'s (rebuild dsh): the client keeps the manifest\'s instructions')
      }
    } else if (JSON.stringify(result.tools) !== JSON.stringify(this.manifest.tools)) {
      this.#note('warn', 'the manifest\'s tool list differs from the server\'s (rebuild dsh): told the client with notifications/tools/list_changed')
      if (!this.#listChangedSent) {
        this.#listChangedSent = true
        this.output.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n`)
      }
    }
  }
}

interface Message { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown }

function parse(bytes: Buffer): Message | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Message : undefined
  } catch {
    return undefined
  }
}
