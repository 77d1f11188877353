import { Context } from 'cordis'
import type {} from '@deepseek-ai/dsh-mcp'
import { banner } from './banner'
import { boot, type BootResult, within } from './boot'
import { logToStderr } from './logger'
import type { StdioFront } from './stdio-front'
import { formatProblems } from './problems'
import { version } from './version'

export interface StartOptions {
  configFile: string
  timeoutMs: number
  /** Answering the stdio client while the config loads; handed to the mcp plugin as `mcpStdio`. */
  front?: StdioFront | undefined
}

/**
 * `dsh start`: boots the config, reports a broken one (exit 1) or prints the banner and serves
 * until SIGINT, SIGTERM or the stdio client hanging up (exit 0).
 */
export async function start(options: StartOptions): Promise<number> {
  // stdout carries MCP frames only: a stray console.log in any plugin would corrupt the stream.
  console.log = console.info = console.debug = console.error
  const began = performance.now()
  const ctx = new Context()
  const log = logToStderr(ctx)
  if (options.front !== undefined) handOver(ctx, options.front)
  const rejections = watchRejections(ctx)
  const urls: string[] = []
  ctx.on('mcp/listening', (url) => urls.push(url))
  const stopped = stopRequest(ctx)

  log.hold()
  const result = await boot(ctx, options.configFile, options.timeoutMs)
  // Let rejections of the failed fibers reach the handler before sorting them out.
  await new Promise((resolve) => setImmediate(resolve))
  const { reported, unexpected, failed } = sortFailures(result, rejections.booted())
  log.release(reported, failed)
  if (failed) {
    process.stderr.write(formatProblems(options.configFile, result.problems, unexpected))
    await within(result.dispose().catch(() => {}), 2000)
    return 1
  }

  process.stderr.write(banner(ctx, { version, configFile: options.configFile, ms: performance.now() - began, urls }) + '\n')
  await serveUntil(ctx, stopped, result)
  rejections.stop()
  return 0
}

/** Gives the mcp plugin the stdio front that answered the client while the config loaded. */
function handOver(ctx: Context, front: StdioFront): void {
  ctx.provide('mcpStdio')
  // A plain object: cordis may hand a service out through a proxy, which class-private fields refuse.
  ctx.set('mcpStdio', { take: () => front.take() })
  front.log = ctx.logger('dsh')
}

/**
 * Unhandled rejections: kept while the config boots (to be reported with its problems), logged
 * once it has. `booted` ends the boot and returns what was kept; `stop` stops listening.
 */
function watchRejections(ctx: Context): { booted(): unknown[]; stop(): void } {
  const unhandled: unknown[] = []
  let booting = true
  const onUnhandled = (reason: unknown) => {
    if (booting) unhandled.push(reason)
    else ctx.logger('dsh').error(reason)
  }
  process.on('unhandledRejection', onUnhandled)
  return {
    booted() {
      booting = false
      return unhandled
    },
    stop: () => process.off('unhandledRejection', onUnhandled),
  }
}

/** Resolves with why dsh should stop: the stdio client hung up, or a signal came. */
function stopRequest(ctx: Context): Promise<string> {
  let stop!: (reason: string) => void
  const stopped = new Promise<string>((resolve) => { stop = resolve })
  ctx.on('mcp/disconnect', () => stop('the client closed stdin'))
  // Before anything is printed: a client may signal as soon as it sees the banner (or earlier).
  const onSignal = (signal: NodeJS.Signals) => stop(`received ${signal}`)
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  return stopped
}

/** Splits the boot's rejections into those its problems already report and the unexpected rest. */
function sortFailures(result: BootResult, unhandled: unknown[]) {
  const reported = new Set(result.problems.map((problem) => problem.error))
  // When the file itself is unusable, what the loader then trips over is noise.
  const wholeFile = result.problems.some((problem) => problem.id === '-')
  const unexpected = wholeFile ? [] : unhandled.filter((reason) => !reported.has(reason))
  return { reported, unexpected, failed: result.problems.length > 0 || unexpected.length > 0 }
}

/** Serves until told to stop, then disposes every plugin. */
async function serveUntil(ctx: Context, stopped: Promise<string>, result: BootResult): Promise<void> {
  // Even when no entry holds the event loop open (no mcp entry yet).
  const keepAlive = setInterval(() => {}, 2 ** 30)
  const reason = await stopped
  clearInterval(keepAlive)
  ctx.logger('dsh').info('stopping: %s', reason)
  // At most 5 s: an exit must never hang on a plugin that does not let go.
  await within(result.dispose().catch(() => {}), 5000)
}
