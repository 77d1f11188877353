import { type Context, Logger, type Message } from 'cordis'

const LETTER: Record<string, string> = { error: 'E', warn: 'W', info: 'I', debug: 'D' }

export interface StderrLog {
  /** Holds every message until `release`: what the boot comes to decides which of them still hold. */
  hold(): void
  /**
   * Prints the held messages, except errors whose error (or its cause) is in `reported`. After a
   * failed boot (`failed`) info and debug lines are dropped too: they describe a start ("serving
   * MCP…") that the report then undoes.
   */
  release(reported: ReadonlySet<unknown>, failed?: boolean): void
}

/**
 * Cordis 4's logger keeps messages in a buffer and prints nothing until a host attaches an
 * exporter. This one writes to stderr: under the stdio transport stdout belongs to the protocol.
 */
export function logToStderr(ctx: Context, level = 2): StderrLog {
  let held: Message[] | undefined
  const write = (message: Message) => {
    const text = Logger.format(exporter, message)
    const prefix = `${LETTER[message.type] ?? '?'} ${message.name}`
    process.stderr.write(text.split('\n').map((line) => `${prefix} ${line}`).join('\n') + '\n')
  }
  const exporter = {
    colors: false as const,
    // The loader names plugins with %c, which cordis' default formatter prints as nothing.
    formatters: { c: (value: unknown) => String(value), C: (value: unknown) => String(value) },
    levels: { default: level },
    export(message: Message) {
      if (held !== undefined) held.push(message)
      else write(message)
    },
  }
  ctx.logger.exporter(exporter)
  return {
    hold: () => { held = [] },
    release(reported, failed = false) {
      const messages = held ?? []
      held = undefined
      // Cordis logs an error's cause as a message of its own: it is covered by the report too.
      const covered = new Set<unknown>()
      for (let error of reported) {
        while (error instanceof Error && !covered.has(error)) {
          covered.add(error)
          error = error.cause
        }
      }
      for (const message of messages) {
        if (covered.has(message.args[0])) continue
        if (failed && message.type !== 'error' && message.type !== 'warn') continue
        write(message)
      }
    },
  }
}
