import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A loopback HTTP relay in front of the emulator, for what the conformance suite stages on the
 * wire rather than through a test hook in the provider:
 * - `beforeNextPublish`: holds the provider between staging and publication until a hook has run.
 *   The hook runs once the staged bytes have landed (the answer to the upload of a `.dsh-stage.`
 *   path is held back until it is done), or, for a publication without an upload, when the
 *   publishing command arrives (recognised by its script's first line in the `Process/Start` body),
 *   as a removal or a move does (one command each).
 * - `drop`: the network goes away. Open connections are cut and every later request is read and
 *   never answered, as a dead route would; `restore` brings the relay back for the next test.
 */
export interface PublishHookRelay {
  url: string
  beforeNextPublish(hook: () => Promise<void>): void
  drop(): void
  restore(): void
  close(): Promise<void>
}

const PUBLISH_MARKER = Buffer.from('mode=$1 target=$2 stage=$3')
// REMOVE and MOVE: one command each, so the hook runs when it arrives, before the name changes.
const NAME_CHANGE_MARKER = Buffer.from('source=$1 ')
const STAGE_MARKER = '.dsh-stage.'

export async function startPublishHookRelay(upstream: string): Promise<PublishHookRelay> {
  const hooks: (() => Promise<void>)[] = []
  const runHooks = async () => {
    for (const hook of hooks.splice(0)) await hook()
  }
  let dropped = false
  const target = new URL(upstream)
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req)
      if (dropped) return
      const upload = req.method === 'POST' && req.url?.startsWith('/files') === true
        && (decodeURIComponent(req.url).includes(STAGE_MARKER) || body.includes(STAGE_MARKER))
      if (req.url?.startsWith('/process.Process/Start') && (body.includes(PUBLISH_MARKER) || body.includes(NAME_CHANGE_MARKER))) await runHooks()
      forward(req, body, res, upload ? runHooks : undefined)
    })().catch(() => res.destroy())
  })
  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, beforeAnswer?: () => Promise<void>) => {
    const forwarded = request({
      host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers,
    }, (answer) => {
      void (async () => {
        if (beforeAnswer) {
          // The upload is complete upstream; the provider learns so only after the hook.
          const bytes = await readAll(answer)
          await beforeAnswer()
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          res.end(bytes)
          return
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })().catch(() => res.destroy())
    })
    forwarded.on('error', () => res.destroy())
    res.on('close', () => forwarded.destroy())
    forwarded.end(body)
  }
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    beforeNextPublish: (hook) => void hooks.push(hook),
    drop() {
      dropped = true
      server.closeAllConnections()
    },
    restore() {
      dropped = false
      server.closeAllConnections()
    },
    close: () => {
      server.closeAllConnections()
      return new Promise((done) => server.close(() => done()))
    },
  }
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
