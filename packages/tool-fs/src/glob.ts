import { globBase } from '@deepseek-ai/dsh-fs/kit'
import type { Context } from 'cordis'
import { posix } from 'node:path'
import { z } from 'zod'
import type { Config } from './config'
import { type GlobData, renderGlob } from './discovery-render'
import { type FsCall, fsTool } from './skeleton'
import { discoveryRoot } from './paths'

export const globInput = z.object({
  pattern: z.string().describe('The pattern to match file paths against, relative to path, e.g. "**/*.ts" or "src/**/*.{js,jsx}".'),
  path: z.string().optional().describe('The directory to search in. Default: the working directory.'),
  include_ignored: z.boolean().default(false).describe('Also match files excluded by .gitignore (.git is always skipped).'),
  offset: z.number().int().min(0).default(0).describe('Skip this many matches (to continue a cut result).'),
})

const DESCRIPTION = 'Find files by name with a wildcard pattern such as "**/*.ts" (relative to path). Returns absolute paths in path order, '
    + 'skipping .git and files excluded by .gitignore. To search file contents, use the dsh `grep` tool.'

/** A pattern that starts above or outside `path` (`../x/**`, `/abs/**`) walks from its plain leading part. */
function split(pattern: string): { base: string; glob: string } {
  const plain = !pattern.startsWith('/') && !pattern.startsWith('./') && !pattern.startsWith('../') && !pattern.includes('/../')
  if (plain) return { base: '', glob: pattern }
  const { base, glob } = globBase(pattern)
  return { base, glob: glob === '' ? '**' : glob }
}

type GlobInput = z.output<typeof globInput>

/**
 * `glob`: paths matching a glob under a directory, in path order. Discovery only: nothing is
 * observed, so the model still reads a file before it edits it.
 */
export function globTool(ctx: Context, config: Config) {
  return fsTool(ctx, config, { name: 'glob', title: 'Find files by name', kind: 'look', inputSchema: globInput, description: DESCRIPTION },
    { run: globbed, render: renderGlob })
}

async function globbed(ctx: Context, config: Config, input: GlobInput, { exec }: FsCall): Promise<GlobData> {
  const { base, glob } = split(input.pattern)
  const dir = input.path ?? '.'
  // An absolute base names its directory itself: joined onto path it doubled the root.
  const start = base === '' ? dir : posix.isAbsolute(base) ? base : posix.join(dir, base)
  const root = await discoveryRoot(ctx, start, exec)
  const result = await ctx.fs.walk(root, {
    glob: [glob], includeIgnored: input.include_ignored, offset: input.offset, limit: config.globLimit,
    ...(input.include_ignored ? {} : { reportIgnoredMatch: true }),
  }, exec.signal)
  // Nothing found: whether ignored files match decides if include_ignored is worth naming.
  // A provider that could tell from the same walk says so; otherwise it is asked once more.
  const ignoredMatch = result.total === 0 && !input.include_ignored
    ? result.ignoredMatch ?? (await ctx.fs.walk(root, { glob: [glob], includeIgnored: true, limit: 1 }, exec.signal)).total > 0
    : undefined
  return {
    pattern: input.pattern, root: root.displayPath, offset: input.offset, result, includeIgnored: input.include_ignored,
    ...(ignoredMatch === undefined ? {} : { ignoredMatch }),
  }
}
