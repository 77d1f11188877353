import type { IncomingMessage, ServerResponse } from 'node:http'
import { mkdir, open, readFile, stat } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { readBody } from './connect.js'
import { multipartBoundary, parseMultipart } from './multipart.js'
import { resolveSandboxPath } from './paths.js'

/** An HTTP failure of the files API: envd answers JSON `{ code, message }` with that status. */
class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

/**
 * envd's blocking open of a FIFO, kept faithful: the request simply never completes (until the
 * client gives up or the emulator closes). A provider must never send a FIFO here.
 */
const HOLD = Symbol('hold')

/** `GET /files` and `POST /files`, the plain-HTTP half of envd. */
export class FilesApi {
  constructor(private readonly home: string) {}

  async handle(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    try {
      const outcome = req.method === 'GET' ? await this.download(req, res, query) : await this.upload(req, res, query)
      if (outcome === HOLD) req.resume()
    } catch (error) {
      if (res.headersSent) return void res.destroy()
      const status = error instanceof HttpError ? error.status : 500
      sendJson(res, status, { code: status, message: (error as Error).message })
    }
  }

  private async download(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<typeof HOLD | void> {
    const path = resolveSandboxPath(query.get('path') ?? '', this.home)
    // GET follows symlinks (stat, not lstat), like envd.
    const st = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new HttpError(404, `path '${path}' does not exist`)
      throw new HttpError(500, `error checking if path exists '${path}': ${error.message}`)
    })
    if (st.isDirectory()) throw new HttpError(400, `path '${path}' is a directory`)
    if (st.isFIFO()) return HOLD
    // Devices report size 0 to envd's ServeContent, so they read as empty.
    const data = st.isFile() ? await readFile(path).catch((error: Error) => { throw new HttpError(500, `error opening file '${path}': ${error.message}`) }) : Buffer.alloc(0)
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
    const body = gzip ? gzipSync(data) : data
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': body.length,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    })
    res.end(body)
  }

  private async upload(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<typeof HOLD | void> {
    let body = await readBody(req)
    if (/\bgzip\b/.test(req.headers['content-encoding'] ?? '')) {
      try {
        body = gunzipSync(body)
      } catch (error) {
        throw new HttpError(400, `error decompressing request body: ${(error as Error).message}`)
      }
    }
    const files: { path: string; data: Buffer }[] = []
    const boundary = multipartBoundary(req.headers['content-type'])
    if (boundary) {
      let parts
      try {
        parts = parseMultipart(body, boundary)
      } catch (error) {
        throw new HttpError(500, `error parsing multipart form: ${(error as Error).message}`)
      }
      for (const part of parts.filter((p) => p.name === 'file')) {
        // `?path=` wins (single-file form); otherwise the part's filename is the full path.
        const path = resolveSandboxPath(query.get('path') ?? part.filename ?? '', this.home)
        if (files.some((f) => f.path === path)) throw new HttpError(400, `you cannot upload multiple files to the same path '${path}' in one upload request`)
        files.push({ path, data: part.data })
      }
    } else {
      const raw = query.get('path')
      if (!raw) throw new HttpError(400, 'path is required for an octet-stream upload')
      files.push({ path: resolveSandboxPath(raw, this.home), data: body })
    }
    const written: { path: string; name: string; type: 'file' }[] = []
    for (const file of files) {
      if ((await this.write(file.path, file.data)) === HOLD) return HOLD
      written.push({ path: file.path, name: basename(file.path), type: 'file' })
    }
    sendJson(res, 200, written)
  }

  /** Writes in place (truncate, same inode), creating parents, as envd's upload does. */
  private async write(path: string, data: Buffer): Promise<typeof HOLD | void> {
    try {
      await mkdir(dirname(path), { recursive: true })
    } catch (error) {
      throw new HttpError(500, `error ensuring directories: ${(error as Error).message}`)
    }
    const st = await stat(path).catch(() => undefined)
    if (st?.isDirectory()) throw new HttpError(400, `path is a directory: ${path}`)
    if (st?.isFIFO()) return HOLD
    let handle
    try {
      handle = await open(path, 'w', 0o666)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code === 'ENOSPC' ? 507 : 500
      throw new HttpError(code, `error opening file: ${(error as Error).message}`)
    }
    try {
      await handle.writeFile(data)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code === 'ENOSPC' ? 507 : 500
      throw new HttpError(code, `error writing file: ${(error as Error).message}`)
    } finally {
      await handle.close()
    }
  }
}
