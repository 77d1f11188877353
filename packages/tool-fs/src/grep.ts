import { FsError, type FsSearchMode } from '@deepseek-ai/dsh-fs'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { renderDiscoveryFailure, renderGrep } from './discovery-render'
import { resolveTarget } from './paths'

export const grepInput = z.object({
  pattern: z.string().describe('A regular expression (JavaScript syntax, no lookaround or backreferences) to search file contents for, line by line, e.g. "function\\s+\\w+".'),
  path: z.string().optional().describe('The directory to search in. Default: the working directory.'),
  glob: z.string().optional().describe('Only search files matching this wildcard pattern, e.g. "*.ts" (a pattern without "/" matches the name at any depth).'),
  output_mode: z.enum(['files_with_matches', 'content', 'count']).default('files_with_matches')
    .describe('files_with_matches (default): file paths; content: matching lines with line numbers; count: matches per file.'),
  case_insensitive: z.boolean().default(false).describe('Match regardless of case.'),
  context: z.number().int().min(0).max(20).default(0).describe('content mode: lines to show before and after each match.'),
  include_ignored: z.boolean().default(false).describe('Also search files excluded by .gitignore (.git is always skipped).'),
  offset: z.number().int().min(0).default(0).describe('Skip this many results (files, or matching lines in content mode) to continue a cut result.'),
})

const MODES: Record<z.output<typeof grepInput>['output_mode'], FsSearchMode> = { files_with_matches: 'files', content: 'lines', count: 'count' }

/**
 * `grep`: a regular-expression search of file contents. Content results are numbered like `read`
 * (number, tab, text), so an `edit` can copy old_string from them; the file still has to be read
 * first, since a search is not an observation.
 */
export function grepTool(ctx: Context, config: Config) {
  return defineTool({
    name: 'grep',
    title: 'Search file contents',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'Search file contents with a regular expression (JavaScript syntax; no lookaround or backreferences). Skips .git, files excluded by .gitignore and binary files. '
      + 'output_mode "content" shows matching lines numbered as the dsh `read` tool numbers them; show a file with the dsh `read` tool before you change it.',
    inputSchema: grepInput,
    concurrency: 'shared',
    async execute(input, exec) {
      try {
        const root = await resolveTarget(ctx, input.path ?? '.', exec)
        const result = await ctx.fs.search(root, {
          pattern: input.pattern,
          caseInsensitive: input.case_insensitive,
          mode: MODES[input.output_mode],
          context: input.context,
          offset: input.offset,
          limit: input.output_mode === 'content' ? config.grepContentLimit : config.grepLimit,
          includeIgnored: input.include_ignored,
          ...(input.glob === undefined ? {} : { glob: [input.glob], matchBase: true }),
        }, exec.signal)
        return renderGrep({
          pattern: input.pattern, root: root.displayPath, mode: input.output_mode, offset: input.offset, result,
          maxLineLength: config.readMaxLineLength, maxBytes: config.readMaxBytes,
        })
      } catch (error) {
        if (FsError.is(error)) return renderDiscoveryFailure('grep', error)
        throw error
      }
    },
  })
}
