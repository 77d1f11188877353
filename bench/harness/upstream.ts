import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { BENCH } from './paths'

/**
 * Upstream's published packages as a baseline. They live in `bench/upstream/` with their own
 * `package.json` and lock file, installed there by npm on first use: never a dependency of any of
 * our packages, and their `@deepseek-ai/cordis` never meets our `cordis`.
 */
export const UPSTREAM = join(BENCH, 'upstream')
const MODULES = join(UPSTREAM, 'node_modules/@deepseek-ai')

/** The installed version of one upstream package, for the report. */
export function upstreamVersion(name: string): string {
  const file = join(MODULES, name, 'package.json')
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : 'not installed'
}

let installing: Promise<string | undefined> | undefined

/** Installs the baseline once per run; resolves to why it is not available, or `undefined`. */
export function ensureUpstream(): Promise<string | undefined> {
  installing ??= (async () => {
    if (existsSync(join(MODULES, 'dsh-tool-fs/package.json'))) return undefined
    try {
      await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: UPSTREAM, timeout: 300_000 })
      return undefined
    } catch (error) {
      return `upstream's packages could not be installed into bench/upstream (npm ci: ${(error as Error).message.split('\n')[0]})`
    }
  })()
  return installing
}

/** One tool call's outcome in upstream's result shape (the part we look at). */
export interface UpstreamResult {
  isError: boolean
  content: Array<{ type: string; text?: string }>
}

/** The provider methods the write and edit baselines call (upstream's `FileSystem` contract). */
export interface UpstreamFs {
  resolve(path: string): Promise<unknown>
  stat(target: unknown): Promise<{ version: string } | undefined>
  writeText(target: unknown, content: string, expected?: unknown): Promise<{ version: string }>
  editText(target: unknown, edit: { oldString: string; newString: string; replaceAll: boolean }, expected?: { version: string }): Promise<{ version: string }>
}

export interface UpstreamStack {
  fs: UpstreamFs
  call(name: string, args: Record<string, unknown>): Promise<UpstreamResult>
  dispose(): Promise<void>
}

interface UpstreamContext {
  plugin(plugin: unknown, config?: unknown): Promise<{ dispose(): unknown }> & { dispose(): unknown }
  fs: UpstreamFs
  tools: { execute(input: { callId: string; name: string; arguments: unknown; signal: AbortSignal }): Promise<UpstreamResult> }
}

const load = async (name: string) => (await import(join(MODULES, name, 'lib/index.js'))) as Record<string, unknown>

/**
 * Upstream's default local stack in process: its system prompt and tool runtime, `dsh-fs-local`
 * at `cwd` and `dsh-tool-fs` (upstream publishes no policy package: its tools then run unguarded).
 */
export async function upstreamStack(cwd: string): Promise<UpstreamStack> {
  const why = await ensureUpstream()
  if (why !== undefined) throw new Error(why)
  const { Context } = await load('cordis') as { Context: new () => UpstreamContext }
  const ctx = new Context()
  const fibers = [
    await ctx.plugin((await load('dsh-system-prompt')).default),
    await ctx.plugin((await load('dsh-tools')).default),
    await ctx.plugin((await load('dsh-fs-local')).default, { cwd }),
    await ctx.plugin(await load('dsh-tool-fs')),
  ]
  let id = 0
  return {
    fs: ctx.fs,
    call: (name, args) => ctx.tools.execute({ callId: `upstream-${id++}`, name, arguments: args, signal: new AbortController().signal }),
    dispose: async () => {
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}

/** Fails loudly when an upstream call the benchmark relies on did not succeed. */
export function expectUpstreamOk(result: UpstreamResult, what: string): UpstreamResult {
  if (result.isError) throw new Error(`upstream ${what} failed: ${result.content.map((c) => c.text ?? '').join('\n')}`)
  return result
}
