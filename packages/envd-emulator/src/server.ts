import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import {
  deadlineMs, parseEnveloped, parseUnary, readBody, RpcError, sendUnary, sendUnaryError, ServerStream, toRpcError,
} from './connect.js'
import { FilesApi } from './files-http.js'
import { IdNames } from './entry.js'
import { FilesystemService } from './filesystem.js'
import { ProcessService } from './process-service.js'
import { ProcessTable } from './processes.js'
import { rpcRoutes, type RpcRoute, type ServedRpc } from './routes.js'

export interface EnvdEmulatorOptions {
  /** The sandbox user's home: relative paths and `~` resolve here. Other paths are host paths. */
  root: string
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number
  /** Delay injected before every request is handled, to make round trips visible in benchmarks. */
  latencyMs?: number
}

/** One request as the emulator received it. */
export interface RequestRecord {
  method: string
  /** URL path without the query: `/files`, `/health`, `/process.Process/Start`, … */
  path: string
  /** True when the emulator does not serve this method and path (answered 404). */
  unknown: boolean
}

export interface EnvdEmulator {
  /** Base URL to pass as the SDK's `sandboxUrl`. */
  url: string
  root: string
  /** Every request so far, in arrival order (live; cleared by `resetRequests`). */
  readonly requests: readonly RequestRecord[]
  /** Requests for routes the emulator does not serve: a non-empty list means protocol drift. */
  readonly unknownRequests: readonly RequestRecord[]
  resetRequests(): void
  /** Request counts per `METHOD path`. */
  stats(): Record<string, number>
  /** Stops the server, kills every process it started (whole groups) and drops open calls. */
  close(): Promise<void>
}

export async function startEnvdEmulator(options: EnvdEmulatorOptions): Promise<EnvdEmulator> {
  const home = resolve(options.root)
  const table = new ProcessTable(home)
  const files = new FilesApi(home)
  // Per emulator, not per process: each start reads the user and group databases afresh.
  const names = new IdNames()
  const routes: Record<string, RpcRoute> = rpcRoutes(home, names, new FilesystemService(home, names), new ProcessService(table))
  const requests: RequestRecord[] = []

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator')
    const method = req.method ?? 'GET'
    const known = serves(routes, method, url.pathname)
    requests.push({ method, path: url.pathname, unknown: !known })
    void (async () => {
      if (options.latencyMs) await delay(options.latencyMs)
      if (!known) return notFound(req, res)
      if (url.pathname === '/health') return void res.writeHead(204).end()
      if (url.pathname === '/files') return files.handle(req, res, url.searchParams)
      return serveRpc(routes[url.pathname.slice(1) as ServedRpc]!, req, res)
    })().catch((error: unknown) => {
      if (!res.headersSent) sendUnaryError(res, toRpcError(error))
      else res.destroy()
    })
  })

  await new Promise<void>((ready, fail) => {
    server.once('error', fail)
    server.listen(options.port ?? 0, '127.0.0.1', () => ready())
  })
  const { port } = server.address() as AddressInfo
  return emulatorHandle({ url: `http://127.0.0.1:${port}`, root: home, requests, server, table })
}

/** Whether the emulator serves `method` on `path`; anything else is protocol drift, answered 404. */
function serves(routes: Record<string, RpcRoute>, method: string, path: string): boolean {
  return (path === '/health' && method === 'GET')
    || (path === '/files' && (method === 'GET' || method === 'POST'))
    || (method === 'POST' && Object.hasOwn(routes, path.slice(1)))
}

/** The caller's view of a listening emulator: its address, the request record, and `close`. */
function emulatorHandle({ url, root, requests, server, table }: { url: string; root: string; requests: RequestRecord[]; server: Server; table: ProcessTable }): EnvdEmulator {
  return {
    url,
    root,
    requests,
    get unknownRequests() {
      return requests.filter((r) => r.unknown)
    },
    resetRequests() {
      requests.length = 0
    },
    stats() {
      const counts: Record<string, number> = {}
      for (const r of requests) counts[`${r.method} ${r.path}`] = (counts[`${r.method} ${r.path}`] ?? 0) + 1
      return counts
    },
    async close() {
      const closed = new Promise<void>((done) => server.close(() => done()))
      await table.killAll()
      // Held requests (FIFO reads) and idle keep-alive sockets would keep close() waiting.
      server.closeAllConnections()
      await closed
    },
  }
}

async function notFound(req: IncomingMessage, res: ServerResponse): Promise<void> {
  req.resume()
  const body = JSON.stringify({ code: 404, message: `the emulator does not serve ${req.method} ${req.url}` })
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

async function serveRpc(route: RpcRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req)
  if (route.kind === 'unary') {
    try {
      sendUnary(res, await route.handle(parseUnary(body)))
    } catch (error) {
      sendUnaryError(res, toRpcError(error))
    }
    return
  }
  // Streaming calls answer 200 at once; any failure travels in the end frame.
  const stream = new ServerStream(res)
  try {
    const keepalive = Number(req.headers['keepalive-ping-interval'])
    await route.handle(parseEnveloped(body), stream, {
      deadlineMs: deadlineMs(req),
      keepaliveSeconds: Number.isFinite(keepalive) && keepalive > 0 ? keepalive : undefined,
    })
    stream.end()
  } catch (error) {
    stream.end(error instanceof RpcError ? error : toRpcError(error))
  }
}
