import type { FsInspection, FsResolveOptions, FsTarget } from '@deepseek-ai/dsh-fs'
import { sessionCwd, type ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'

/** Relative paths are the session's when it has a working directory, else the provider's. */
function resolveOptions(exec: ToolExecution): FsResolveOptions {
  const cwd = sessionCwd(exec)
  return cwd === undefined ? { signal: exec.signal } : { cwd, signal: exec.signal }
}

export function resolveTarget(ctx: Context, path: string, exec: ToolExecution): Promise<FsTarget> {
  return ctx.fs.resolve(path, resolveOptions(exec))
}

/** The target of a write or edit: the provider may name it from what it already knows and check it at the commit. */
export function mutationTarget(ctx: Context, path: string, exec: ToolExecution): Promise<FsTarget> {
  return ctx.fs.resolveForMutation(path, resolveOptions(exec))
}

/** Target, metadata and (up to `textUpTo` bytes) text in one provider step: the read's one stat. */
export function inspectPath(ctx: Context, path: string, exec: ToolExecution, textUpTo: number): Promise<FsInspection> {
  return ctx.fs.inspect(path, { ...resolveOptions(exec), textUpTo })
}
