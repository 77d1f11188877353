import { Context } from 'cordis'
import type { FileSystem } from '../../packages/fs/src/index'
import { LocalFileSystem } from '../../packages/fs-local/src/index'
import * as policy from '../../packages/fs-policy/src/index'
import * as toolFs from '../../packages/tool-fs/src/index'
import * as tools from '../../packages/tools/src/index'
import type { ToolResult } from '../../packages/tools/src/index'

/** The default agent stack without the loader: fs-local rooted at `cwd`, tools, tool-fs, and the policy if asked. */
export interface ToolStack {
  ctx: Context
  fs: FileSystem
  /** One conversation: the policy keys its observations on this object. */
  session: object
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>
  dispose(): Promise<void>
}

/** Loads a provider of `ctx.fs` into `ctx`; the default is the local disk rooted at `cwd`. */
export type ProviderLoader = (ctx: Context) => Promise<Fiber>
type Fiber = { dispose(): unknown }

export async function toolStack(cwd: string, options: { policy: boolean; provider?: ProviderLoader; toolFs?: Record<string, unknown> }): Promise<ToolStack> {
  const ctx = new Context()
  const fibers: Fiber[] = [
    options.provider ? await options.provider(ctx) : await ctx.plugin(LocalFileSystem, { cwd, root: cwd }),
    await ctx.plugin(tools.default),
    await ctx.plugin(toolFs.default, options.toolFs ?? {}),
  ]
  if (options.policy) fibers.push(await ctx.plugin(policy.default))
  const session = {}
  let id = 0
  return {
    ctx,
    fs: ctx.fs as FileSystem,
    session,
    call: (name, args) => ctx.tools.execute({ name, arguments: args, callId: `bench-${id++}`, agent: { session } }),
    dispose: async () => {
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}

/** Fails loudly when a tool call that the benchmark relies on did not succeed. */
export function expectOk(result: ToolResult, what: string): ToolResult {
  if (result.isError) throw new Error(`${what} failed: ${result.error?.code ?? ''} ${result.content.map((c) => c.text).join('\n')}`)
  return result
}
