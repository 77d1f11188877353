import type { Context } from 'cordis'
import { PassThrough } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { Config } from '../src/index'
import { serveStdio } from '../src/stdio'
import { toolContext } from './fixtures'
import { frameReader, type Frame } from '../../cli/tests/frames'

interface Served {
  ctx: Context
  input: PassThrough
  /** The next JSON-RPC frame the server writes. */
  next: () => Promise<Frame>
  disconnected: Promise<void>
}

/** `serveStdio` over in-memory pipes, so a test writes raw lines and reads raw frames. */
async function serve(maxMessageBytes: number): Promise<Served> {
  const ctx = await toolContext()
  const input = new PassThrough()
  const output = new PassThrough()
  const disconnected = new Promise<void>((resolve) => ctx.on('mcp/disconnect', () => resolve()))
  await ctx.plugin({ inject: ['tools'], apply: (inner: Context) => serveStdio(inner, Config.parse({ maxMessageBytes }), input, output) })
  const next = frameReader(output)
  return { ctx, input, next, disconnected }
}

const send = (input: PassThrough, message: object) => input.write(`${JSON.stringify(message)}\n`)

async function initialized(served: Served): Promise<void> {
  send(served.input, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
  expect((await served.next()).result.serverInfo.name).toBe('dsh')
  send(served.input, { jsonrpc: '2.0', method: 'notifications/initialized' })
}

/** A `tools/call` the size of the SDK client's, with `id` last as the SDK client writes it. */
function bigCall(id: number, bytes: number): string {
  return `${JSON.stringify({ method: 'tools/call', params: { name: 'whoami', arguments: { note: 'x'.repeat(bytes) } }, jsonrpc: '2.0', id })}\n`
}

describe('MCP over stdio', () => {
  it('answers a message over maxMessageBytes with an error naming the limit, and goes on serving', async () => {
    const served = await serve(64 * 1024)
    await initialized(served)
    const line = bigCall(5, 200 * 1024)
    // In pieces, as a pipe delivers it.
    for (let at = 0; at < line.length; at += 16 * 1024) served.input.write(line.slice(at, at + 16 * 1024))
    const refusal = await served.next()
    expect(refusal).toMatchObject({ id: 5, error: { code: -32600, data: { maxMessageBytes: 65536, bytes: line.length - 1 } } })
    expect(refusal.error.message).toContain('over dsh\'s limit of 65536 bytes (maxMessageBytes in its mcp config)')
    send(served.input, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'whoami', arguments: {} } })
    expect(await served.next()).toMatchObject({ id: 6, result: { content: [{ type: 'text', text: 'session 1' }] } })
  })

  it('does not answer an oversize notification, and answers an oversize line without an id with id null', async () => {
    const served = await serve(1024)
    await initialized(served)
    served.input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { pad: 'x'.repeat(4096) } })}\n`)
    served.input.write(`${'y'.repeat(4096)}\n`)
    expect(await served.next()).toMatchObject({ id: null, error: { code: -32600 } })
    send(served.input, { jsonrpc: '2.0', id: 7, method: 'tools/list' })
    expect(await served.next()).toMatchObject({ id: 7 })
  })

  it('reports the end of input after an oversize message, even cut off in the middle of one', async () => {
    const served = await serve(1024)
    await initialized(served)
    served.input.write(bigCall(8, 4096))
    expect(await served.next()).toMatchObject({ id: 8, error: { code: -32600 } })
    served.input.end(bigCall(9, 4096).slice(0, 3000))
    await served.disconnected
  })

  it('holds no more than about maxMessageBytes while a huge line streams past', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const served = await serve(1024 * 1024)
    await initialized(served)
    gc()
    const before = process.memoryUsage().arrayBuffers
    const chunk = Buffer.alloc(256 * 1024, 0x61)
    // 64 MiB of one line: if it were kept, the heap would hold it all.
    for (let i = 0; i < 256; i++) {
      if (!served.input.write(chunk)) await new Promise((resolve) => served.input.once('drain', resolve))
    }
    await new Promise((resolve) => setImmediate(resolve))
    gc()
    const during = process.memoryUsage().arrayBuffers - before
    served.input.write('\n')
    expect(await served.next()).toMatchObject({ id: null, error: { data: { bytes: 64 * 1024 * 1024 } } })
    expect(during).toBeLessThan(16 * 1024 * 1024)
  })
})
