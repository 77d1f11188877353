import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { type ListData, renderList } from './discovery-render'
import { type FsCall, fsTool } from './skeleton'
import { discoveryRoot } from './paths'

export const listInput = z.object({
  path: z.string().optional().describe('The directory to show. Default: the working directory.'),
  depth: z.number().int().min(1).max(20).default(2).describe('How many levels below path to show (1 = its own entries).'),
  ignore: z.array(z.string()).optional().describe('Extra patterns to leave out, in .gitignore syntax, e.g. ["dist/", "*.log"].'),
  include_ignored: z.boolean().default(false).describe('Also show entries excluded by .gitignore (.git is always skipped).'),
  offset: z.number().int().min(0).default(0).describe('Skip this many entries (to continue a cut listing).'),
})

const DESCRIPTION = 'Show a directory as a tree (directories end with "/", files show their size), skipping .git and files excluded by '
    + '.gitignore. To find files by name anywhere below, use the dsh `glob` tool.'

/** `list`: a directory tree with types and sizes, `.gitignore` honoured. Nothing is observed. */
export function listTool(ctx: Context, config: Config) {
  return fsTool(ctx, config, { name: 'list', title: 'List directory tree', kind: 'look', inputSchema: listInput, description: DESCRIPTION },
    { run: listed, render: renderList })
}

async function listed(ctx: Context, config: Config, input: z.output<typeof listInput>, { exec }: FsCall): Promise<ListData> {
  const root = await discoveryRoot(ctx, input.path ?? '.', exec)
  const result = await ctx.fs.walk(root, {
    maxDepth: input.depth, includeIgnored: input.include_ignored, offset: input.offset, limit: config.listLimit, sizes: true,
    ...(input.ignore === undefined ? {} : { exclude: input.ignore }),
  }, exec.signal)
  return { root: root.displayPath, depth: input.depth, offset: input.offset, result }
}
