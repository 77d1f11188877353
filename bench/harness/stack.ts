import { Context } from 'cordis'
import type { FileSystem, FsTarget } from '../../packages/fs/src/index'
import { LocalFileSystem } from '../../packages/fs-local/src/index'

/** A Cordis context with the local provider on `ctx.fs`, rooted at `cwd` as the default agent config does. */
export interface FsStack {
  ctx: Context
  fs: FileSystem
  target(path: string): Promise<FsTarget>
  dispose(): Promise<void>
}

export async function localFsStack(cwd: string): Promise<FsStack> {
  const ctx = new Context()
  const fiber = await ctx.plugin(LocalFileSystem, { cwd, root: cwd })
  const fs = ctx.fs as FileSystem
  return {
    ctx,
    fs,
    target: (path) => fs.resolve(path),
    dispose: async () => {
      await fiber.dispose()
    },
  }
}
