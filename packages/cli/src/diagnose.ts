import type { Entry, Loader } from '@cordisjs/plugin-loader'
import type { Context } from 'cordis'
import type { EntryProblem } from './problems'

// FiberState.PENDING: a fiber waiting for services that nothing provides.
const PENDING = 0

/**
 * Walks every enabled entry after the loader settled and says what went wrong with each: the
 * package could not be imported, its config was refused, its plugin threw, or it waits for a
 * service that no entry provides (which would otherwise be a silent, half-working start).
 */
export async function diagnose(ctx: Context, loader: Loader, importErrors: ReadonlyMap<Entry, unknown>): Promise<EntryProblem[]> {
  const problems: EntryProblem[] = []
  for (const entry of loader.entries()) {
    if (entry.disabled || entry.options.group) continue
    const about = { id: entry.id, name: String(entry.options.name) }
    if (importErrors.has(entry)) {
      const error = importErrors.get(entry)
      problems.push({ ...about, message: describeImportError(about.name, error), error })
      continue
    }
    const fiber = entry.fiber
    if (fiber === undefined) {
      problems.push({ ...about, message: 'was not loaded' })
      continue
    }
    const error = await fiber.await().then(() => undefined, (reason: unknown) => reason ?? new Error('unknown failure'))
    if (error !== undefined) {
      problems.push({ ...about, message: describePluginError(error), error })
    } else if (fiber.state === PENDING) {
      const missing = Object.keys(fiber.inject).filter((name) => ctx.get(name) === undefined)
      const list = missing.length > 0 ? missing.join(', ') : Object.keys(fiber.inject).join(', ')
      problems.push({ ...about, message: `waits for service ${list}, which no running entry provides` })
    }
  }
  return problems
}

/** Entries whose plugin is still starting (an `apply` that never settles). */
export function stillLoading(loader: Loader): Entry[] {
  return [...loader.entries()].filter((entry) => entry._initTask !== undefined || entry.fiber?.inertia !== undefined)
}

function describeImportError(name: string, error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (name === 'undefined' || name === '') return 'has no `name`: give the package to load'
  if (code === 'ERR_MODULE_NOT_FOUND' && messageOf(error).includes(`'${name}'`)) {
    return `cannot load package ${name}: it is not installed beside the config file nor where dsh is (npm i it in the config's project), or not built (run pnpm build)`
  }
  return `cannot load package ${name}: ${messageOf(error)}`
}

function describePluginError(error: unknown): string {
  if (error instanceof Error && error.name === 'ValidationError') {
    // Cordis words it as "invalid config:" then one "  - <issue> (at <path>)" line per issue.
    const issues = error.message.split('\n').slice(1).map((line) => line.trim().replace(/^- /, '').replace(/ \(at \)$/, ''))
    return `has an invalid config: ${issues.join('; ')}`
  }
  return `failed to start: ${messageOf(error)}`
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error)
}
