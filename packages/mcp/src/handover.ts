import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Readable, Writable } from 'node:stream'

/**
 * What a host may provide as the `mcpStdio` service: the stdio streams to serve instead of
 * process.stdin and process.stdout. `dsh start` uses it to answer `initialize` and `tools/list`
 * from a manifest while the plugins load, then hands the session over: `take()` returns an input
 * that yields every line the client sent so far (then the rest of stdin), the output, and which
 * answers to keep back because the host already gave them. Called once, by the stdio transport,
 * when it starts.
 */
export interface StdioHandover {
  take(): StdioStreams
}

export interface StdioStreams {
  input: Readable
  output: Writable
  /**
   * Whether the transport must not send `message`: an answer the host already gave. Asked of every
   * outgoing message, so the streams themselves can be the process's own, with no layer between.
   */
  holdBack?: (message: JSONRPCMessage) => boolean
}

declare module 'cordis' {
  interface Context {
    mcpStdio?: StdioHandover
  }
}
