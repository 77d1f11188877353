import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import * as policyModule from '@deepseek-ai/dsh-fs-policy'
import * as toolsModule from '@deepseek-ai/dsh-tools'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { chmod, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as toolFsModule from '../../src/index'

const policyPlugin = policyModule.default ?? policyModule
const toolsPlugin = toolsModule.default ?? toolsModule
const toolFsPlugin = toolFsModule.default ?? toolFsModule

export interface RootedStack {
  ctx: Context
  /** The containment root and working directory of the provider. */
  dir: string
  /** A sibling of the root, holding what must never be read or changed. */
  outside: string
  call(name: string, args: unknown, session?: object): Promise<ToolResult>
  session: object
  dispose(): Promise<void>
}

/** The assembled stack as shipped (LocalFileSystem with `root`, tools, policy, tool-fs) on a fresh temp dir. */
export async function rootedStack(options: { policy?: boolean } = {}): Promise<RootedStack> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'dsh-reliability-')))
  const dir = join(base, 'root')
  const outside = join(base, 'outside')
  await mkdir(dir)
  await mkdir(outside)
  // Readable by the unprivileged child of the permission cases.
  await chmod(base, 0o755)
  await chmod(dir, 0o755)
  const ctx = new Context()
  await ctx.plugin(LocalFileSystem, { cwd: dir, root: dir })
  await ctx.plugin(toolsPlugin)
  if (options.policy !== false) await ctx.plugin(policyPlugin)
  await ctx.plugin(toolFsPlugin)
  const session = { cwd: dir }
  return {
    ctx,
    dir,
    outside,
    session,
    call: (name, args, who = session) => ctx.tools.execute({ name, arguments: args, agent: { session: who } }),
    dispose: () => rm(base, { recursive: true, force: true }),
  }
}

/** The text of a result. */
export function textOf(result: ToolResult): string {
  return result.content.map((part) => ('text' in part ? part.text : '')).join('')
}

/** Every code a tool call may legitimately fail with: the fs contract's and the tool runtime's own. */
export const TYPED_CODES = new Set([
  'FS_NOT_FOUND', 'FS_NOT_DIRECTORY', 'FS_NOT_REGULAR_FILE', 'FS_NOT_TEXT', 'FS_TOO_LARGE', 'FS_PERMISSION_DENIED',
  'FS_OUTSIDE_ROOT', 'FS_INVALID_PATH', 'FS_IO_ERROR', 'FS_STALE_VERSION', 'FS_NOT_OBSERVED', 'FS_EDIT_NOT_FOUND',
  'FS_AMBIGUOUS_EDIT', 'FS_ABORTED', 'INVALID_ARGUMENTS', 'UNKNOWN_TOOL',
])
