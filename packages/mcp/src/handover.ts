import type { Readable, Writable } from 'node:stream'

/**
 * What a host may provide as the `mcpStdio` service: the stdio streams to serve instead of
 * process.stdin and process.stdout. `dsh start` uses it to answer `initialize` and `tools/list`
 * from a manifest while the plugins load, then hands the session over: `take()` returns an input
 * that replays every line the client sent so far (then the rest of stdin) and an output that keeps
 * back the answers the host already gave. Called once, by the stdio transport, when it starts.
 */
export interface StdioHandover {
  take(): { input: Readable; output: Writable }
}

declare module 'cordis' {
  interface Context {
    mcpStdio?: StdioHandover
  }
}
