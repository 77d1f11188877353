import { createServer, request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A loopback HTTP relay in front of the emulator that can hold the provider's next publishing
 * command until a hook has run: the "competitor appears after the probe" clause, staged on the
 * wire rather than through a test hook in the provider. The command is recognised by the
 * publishing script's first line, which travels verbatim in the `Process/Start` request body.
 */
export interface PublishHookRelay {
  url: string
  beforeNextPublish(hook: () => Promise<void>): void
  close(): Promise<void>
}

const PUBLISH_MARKER = Buffer.from('mode=$1 target=$2 stage=$3')

export async function startPublishHookRelay(upstream: string): Promise<PublishHookRelay> {
  const hooks: (() => Promise<void>)[] = []
  const target = new URL(upstream)
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req)
      if (req.url?.startsWith('/process.Process/Start') && body.includes(PUBLISH_MARKER)) {
        for (const hook of hooks.splice(0)) await hook()
      }
      const forwarded = request({
        host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers,
      }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      forwarded.on('error', () => res.destroy())
      res.on('close', () => forwarded.destroy())
      forwarded.end(body)
    })().catch(() => res.destroy())
  })
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    beforeNextPublish: (hook) => void hooks.push(hook),
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
