import { Entry } from '@cordisjs/plugin-loader'
import type { Context } from 'cordis'
import { stat } from 'node:fs/promises'
import { diagnose, stillLoading } from './diagnose'
import { ReadOnlyLoader } from './loader'
import type { EntryProblem } from './problems'

declare module 'cordis' {
  interface Events {
    // Emitted by the loader (not declared by cordis 4): the only report of a failed import.
    'internal/error'(this: Context, error: unknown): void
  }
}

export interface BootResult {
  /** Empty when every entry is running. */
  problems: EntryProblem[]
  /** Disposes every plugin the config loaded (the config file is left as it was). */
  dispose(): Promise<void>
}

/**
 * Boots `configFile` with the Cordis loader in `ctx` and waits until every entry has settled, at
 * most `timeoutMs`. Never throws for a bad config: what went wrong comes back as problems.
 */
export async function boot(ctx: Context, configFile: string, timeoutMs: number): Promise<BootResult> {
  const problems: EntryProblem[] = []
  const importErrors = collectImportErrors(ctx, configFile, problems)
  const info = await stat(configFile).catch(() => undefined)
  if (info === undefined) return failure(configFile, 'config file not found')
  if (!info.isFile()) return failure(configFile, 'config path is not a file')

  const loaded = await readConfig(ctx, configFile, timeoutMs)
  if ('problems' in loaded) return loaded
  const { dispose } = loaded
  const settled = await within(ctx.loader.await().then(() => true), timeoutMs)
  if (settled !== true) {
    for (const entry of stillLoading(ctx.loader)) {
      problems.push({ id: entry.id, name: String(entry.options.name), message: `is still starting after ${timeoutMs / 1000} s` })
    }
    return { problems, dispose }
  }
  problems.push(...await diagnose(ctx, ctx.loader, importErrors))
  return { problems, dispose }
}

/**
 * The loader reports a failed import only as `internal/error`: an entry's goes into the returned
 * map (for `diagnose`), one of the config as a whole straight into `problems`.
 */
function collectImportErrors(ctx: Context, configFile: string, problems: EntryProblem[]): Map<Entry, unknown> {
  const importErrors = new Map<Entry, unknown>()
  ctx.on('internal/error', function (error) {
    const entry = (this as unknown as Record<symbol, Entry | undefined> | undefined)?.[Entry.key]
    if (entry !== undefined) importErrors.set(entry, error)
    else problems.push({ id: '-', name: configFile, message: `cannot load the config: ${messageOf(error)}`, error })
  })
  return importErrors
}

/** A boot that failed on the config file itself: one problem, nothing to dispose. */
function failure(configFile: string, message: string, error?: unknown): BootResult {
  return { problems: [{ id: '-', name: configFile, message, error }], dispose: async () => {} }
}

/**
 * Starts the loader on `configFile` and waits, at most `timeoutMs`, until it has read the file.
 * A file it cannot read, reads too slowly or finds no list of entries in is a failure.
 */
async function readConfig(ctx: Context, configFile: string, timeoutMs: number): Promise<BootResult | { dispose(): Promise<void> }> {
  const fiber = ctx.plugin(ReadOnlyLoader, { name: 'cordis', filename: configFile })
  const dispose = async () => { await fiber.dispose() }
  let readError: unknown
  const read = await within(Promise.resolve(fiber).then(() => 'ok' as const, (error: unknown) => {
    readError = error
    return 'failed' as const
  }), timeoutMs)
  if (read !== 'ok') {
    await dispose().catch(() => {})
    return read === 'failed'
      ? failure(configFile, `cannot read the config: ${messageOf(readError)}`, readError)
      : failure(configFile, `reading the config took more than ${timeoutMs / 1000} s`)
  }
  if (!Array.isArray(ctx.loader.file.data)) {
    await dispose()
    return failure(configFile, 'the config must be a YAML list of entries ({ id, name, config })')
  }
  return { dispose }
}

/** The promise's value, or undefined once `ms` have passed. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), ms) })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
