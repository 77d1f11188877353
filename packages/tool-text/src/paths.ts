import type { FsTarget } from '@deepseek-ai/dsh-fs'
import { sessionCwd, type ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'

/** Relative paths are the session's when it has a working directory, else the provider's. */
export function resolveTarget(ctx: Context, path: string, exec: ToolExecution): Promise<FsTarget> {
  const cwd = sessionCwd(exec)
  return ctx.fs.resolve(path, cwd === undefined ? { signal: exec.signal } : { cwd, signal: exec.signal })
}
