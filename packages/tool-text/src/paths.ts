import { type FileSystem, FsError, type FsInspection, type FsResolveOptions, type FsTarget } from '@deepseek-ai/dsh-fs'
import { sessionCwd, type ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { decodingOf } from './encoding'
import { pathForm, PathFormRefused } from './path-form'

/** Relative paths are the session's when it has a working directory, else the provider's. */
function resolveOptions(exec: ToolExecution): FsResolveOptions {
  const cwd = sessionCwd(exec)
  return cwd === undefined ? { signal: exec.signal } : { cwd, signal: exec.signal }
}

export async function resolveTarget(ctx: Context, path: string, exec: ToolExecution): Promise<FsTarget> {
  await refuseForeignForm(ctx.fs, path, exec)
  return ctx.fs.resolve(path, resolveOptions(exec))
}

/** The target of a write or edit: the provider may name it from what it already knows and check it at the commit. */
export async function mutationTarget(ctx: Context, path: string, exec: ToolExecution): Promise<FsTarget> {
  await refuseForeignForm(ctx.fs, path, exec)
  return ctx.fs.resolveForMutation(path, resolveOptions(exec))
}

/** The root of a glob, grep or list: the provider may name it without a round trip and check it in the walk itself. */
export async function discoveryRoot(ctx: Context, path: string, exec: ToolExecution): Promise<FsTarget> {
  await refuseForeignForm(ctx.fs, path, exec)
  return ctx.fs.resolveForDiscovery(path, resolveOptions(exec))
}

/** Target, metadata and (up to `textUpTo` bytes) text, or raw bytes, in one provider step: the read's one stat. */
export async function inspectPath(ctx: Context, path: string, exec: ToolExecution, textUpTo: number, as: 'text' | 'bytes' = 'text'): Promise<FsInspection> {
  await refuseForeignForm(ctx.fs, path, exec)
  return ctx.fs.inspect(path, { ...resolveOptions(exec), textUpTo, ...(as === 'bytes' ? { as } : { decoding: decodingOf(exec) }) })
}

// The tools whose path argument is `file_path`; the others (the editor, glob, grep, list) call it `path`.
const FILE_PATH_TOOLS = new Set(['read', 'write', 'edit', 'multi_edit'])

/**
 * A path in a shell's, an editor's or another system's form (`~/x`, `src\x`, `file:///x`) is
 * refused with the path it most likely means, unless something exists at it taken literally: thrown
 * as data (`PathFormRefused`), which the calling tool returns as its refusal. Only such paths cost
 * the extra stats: a plain path goes straight to the provider.
 */
async function refuseForeignForm(fs: FileSystem, path: string, exec: ToolExecution): Promise<void> {
  const form = pathForm(path)
  if (form === undefined) return
  const options = resolveOptions(exec)
  if (await existsAt(fs, path, options)) return
  const argument = FILE_PATH_TOOLS.has(exec.name) ? 'file_path' : 'path'
  let meant: FsTarget
  try {
    meant = await fs.resolve(form.meant, options)
  } catch (error) {
    if (FsError.is(error, 'FS_OUTSIDE_ROOT')) throw new PathFormRefused('FS_OUTSIDE_ROOT', { pathForm: { path, form, argument, meant: { outside: true } } })
    throw error
  }
  const exists = await existsAt(fs, form.meant, options)
  throw new PathFormRefused('FS_INVALID_PATH', { pathForm: { path, form, argument, meant: { path: meant.displayPath, exists } } })
}

async function existsAt(fs: FileSystem, path: string, options: FsResolveOptions): Promise<boolean> {
  try {
    return (await fs.stat(await fs.resolve(path, options), options.signal)) !== undefined
  } catch (error) {
    if (FsError.is(error)) return false
    throw error
  }
}
