import type { Readable } from 'node:stream'

/** A JSON-RPC frame as written on the wire, loosely typed for assertions. */
export type Frame = Record<string, any>

/**
 * Reads newline-delimited JSON-RPC frames off `stream` (the stdout of a spawned `dsh start`, or an
 * in-memory pipe a stdio server writes to) for tests that drive the protocol by hand; the mcp
 * package's specs use it too. The returned
 * function resolves with the next frame, in order, whether it came before or after the call.
 */
export function frameReader(stream: Readable): () => Promise<Frame> {
  let buffered = ''
  const queue: Frame[] = []
  const waiting: ((frame: Frame) => void)[] = []
  stream.setEncoding('utf8').on('data', (text: string) => {
    buffered += text
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      const frame = JSON.parse(buffered.slice(0, newline)) as Frame
      buffered = buffered.slice(newline + 1)
      const waiter = waiting.shift()
      if (waiter) waiter(frame)
      else queue.push(frame)
    }
  })
  return () => queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiting.push(resolve))
}
