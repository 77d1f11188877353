import type { Readable, Writable } from 'node:stream'

export interface RpcAnswer { result?: any; error?: { code: number; message: string } }

/**
 * The client end of a newline-delimited JSON-RPC session, for the demo: it sends requests on
 * `output` (the server's input) and matches the answers read from `input` by id.
 */
export class McpLines {
  #next = 1
  #buffered = ''
  readonly #waiting = new Map<number, (answer: RpcAnswer) => void>()

  constructor(input: Readable, private readonly output: Writable) {
    input.setEncoding('utf8').on('data', (text: string) => {
      this.#buffered += text
      for (let newline = this.#buffered.indexOf('\n'); newline !== -1; newline = this.#buffered.indexOf('\n')) {
        const message = JSON.parse(this.#buffered.slice(0, newline)) as RpcAnswer & { id?: number }
        this.#buffered = this.#buffered.slice(newline + 1)
        if (typeof message.id === 'number') this.#waiting.get(message.id)?.(message)
      }
    })
  }

  request(method: string, params?: Record<string, unknown>): Promise<RpcAnswer> {
    const id = this.#next++
    const answer = new Promise<RpcAnswer>((resolve) => this.#waiting.set(id, resolve))
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`)
    return answer.finally(() => this.#waiting.delete(id))
  }

  notify(method: string): void {
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`)
  }
}
