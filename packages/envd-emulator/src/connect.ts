import type { IncomingMessage, ServerResponse } from 'node:http'

/** Connect error codes the emulator emits (the protocol's snake_case names). */
export type RpcCode =
  | 'canceled' | 'unknown' | 'invalid_argument' | 'deadline_exceeded' | 'not_found'
  | 'already_exists' | 'permission_denied' | 'failed_precondition' | 'unimplemented'
  | 'internal' | 'unavailable'

/** An RPC failure: becomes a unary error body or the error of a stream's end frame. */
export class RpcError extends Error {
  constructor(readonly code: RpcCode, message: string) {
    super(message)
    this.name = 'RpcError'
  }
}

// The Connect spec's code → HTTP status table. Only unary errors use it: the client maps the
// status back to a code when the body is not JSON, so the pair must agree.
const HTTP_STATUS: Record<RpcCode, number> = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  failed_precondition: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
}

/** Flag bits of a Connect streaming envelope. */
const FLAG_COMPRESSED = 0x01
const FLAG_END_STREAM = 0x02

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** A request is streaming when its content type is `application/connect+json`. */
export function isStreamingRequest(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').startsWith('application/connect+')
}

/** Parses a unary JSON body; an empty body is the empty message. */
export function parseUnary(body: Buffer): unknown {
  if (body.length === 0) return {}
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    throw new RpcError('invalid_argument', 'request body is not valid JSON')
  }
}

/** Parses the single enveloped message of a server-streaming request. */
export function parseEnveloped(body: Buffer): unknown {
  if (body.length < 5) throw new RpcError('invalid_argument', 'streaming request has no envelope')
  const flags = body[0]!
  const length = body.readUInt32BE(1)
  if (flags & FLAG_COMPRESSED) throw new RpcError('unimplemented', 'compressed envelopes are not supported')
  if (body.length < 5 + length) throw new RpcError('invalid_argument', 'truncated envelope')
  return parseUnary(body.subarray(5, 5 + length))
}

/** The `Connect-Timeout-Ms` header as milliseconds, or undefined when the call has no deadline. */
export function deadlineMs(req: IncomingMessage): number | undefined {
  const raw = req.headers['connect-timeout-ms']
  if (typeof raw !== 'string' || raw === '') return undefined
  const ms = Number(raw)
  if (!Number.isInteger(ms) || ms < 0) throw new RpcError('invalid_argument', `bad Connect-Timeout-Ms: ${raw}`)
  return ms
}

export function sendUnary(res: ServerResponse, message: unknown): void {
  const body = JSON.stringify(message)
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

export function sendUnaryError(res: ServerResponse, error: RpcError): void {
  const body = JSON.stringify({ code: error.code, message: error.message })
  res.writeHead(HTTP_STATUS[error.code], { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

function envelope(flags: number, payload: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(payload), 'utf8')
  const head = Buffer.alloc(5)
  head[0] = flags
  head.writeUInt32BE(json.length, 1)
  return Buffer.concat([head, json])
}

/**
 * The response side of one server-streaming call. Errors travel in the end frame of an HTTP 200
 * response: a non-200 status would make the client derive the code from the status instead.
 */
export class ServerStream {
  private ended = false

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'application/connect+json' })
    res.flushHeaders()
    // A client that goes away ends the stream from our side too: later writes are dropped.
    res.on('close', () => { this.ended = true })
  }

  /** Runs `listener` once the response is closed, by us or by a client that went away. */
  onClose(listener: () => void): void {
    this.res.on('close', listener)
  }

  get open(): boolean {
    return !this.ended
  }

  send(message: unknown): void {
    if (this.ended) return
    this.res.write(envelope(0, message))
  }

  end(error?: RpcError): void {
    if (this.ended) return
    this.ended = true
    this.res.end(envelope(FLAG_END_STREAM, error ? { error: { code: error.code, message: error.message } } : {}))
  }
}

/** Turns any thrown value into an RpcError (unexpected failures become `internal`). */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error
  return new RpcError('internal', error instanceof Error ? error.message : String(error))
}
