import type { FsSearchMode, FsSearchOptions } from '@deepseek-ai/dsh-fs'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { type GrepData, renderGrep } from './discovery-render'
import { type FsCall, fsTool } from './skeleton'
import { discoveryRoot } from './paths'

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

const DESCRIPTION = 'Search file contents with a regular expression (JavaScript syntax; no lookaround or backreferences). Skips .git, files excluded by .gitignore and binary files. '
    + 'output_mode "content" shows matching lines numbered as the dsh `read` tool numbers them; show a file with the dsh `read` tool before you change it.'

const MODES: Record<z.output<typeof grepInput>['output_mode'], FsSearchMode> = { files_with_matches: 'files', content: 'lines', count: 'count' }

type GrepInput = z.output<typeof grepInput>

/**
 * `grep`: a regular-expression search of file contents. Content results are numbered like `read`
 * (number, tab, text), so an `edit` can copy old_string from them; the file still has to be read
 * first, since a search is not an observation.
 */
export function grepTool(ctx: Context, config: Config) {
  return fsTool(ctx, config, { name: 'grep', title: 'Search file contents', kind: 'look', inputSchema: grepInput, description: DESCRIPTION },
    { run: searched, render: renderGrep })
}

/** The provider's search options for a call. */
function searchOptions(input: GrepInput, config: Config): FsSearchOptions {
  return {
    pattern: input.pattern,
    caseInsensitive: input.case_insensitive,
    mode: MODES[input.output_mode],
    context: input.context,
    offset: input.offset,
    limit: input.output_mode === 'content' ? config.grepContentLimit : config.grepLimit,
    includeIgnored: input.include_ignored,
    ...(input.glob === undefined ? {} : { glob: [input.glob], matchBase: true }),
  }
}

async function searched(ctx: Context, config: Config, input: GrepInput, { exec }: FsCall): Promise<GrepData> {
  const root = await discoveryRoot(ctx, input.path ?? '.', exec)
  const options = searchOptions(input, config)
  const asked = input.offset === 0 && !input.include_ignored
  const result = await ctx.fs.search(root, asked ? { ...options, reportIgnoredMatch: true } : options, exec.signal)
  // Nothing found: whether ignored files hold a match decides if include_ignored is worth naming.
  // A provider that could tell from the same search says so; otherwise it is asked once more.
  const ignoredMatch = result.files.length === 0 && asked
    ? result.ignoredMatch ?? (await ctx.fs.search(root, { ...options, mode: 'files', limit: 1, includeIgnored: true }, exec.signal)).files.length > 0
    : undefined
  return {
    ...(ignoredMatch === undefined ? {} : { ignoredMatch }),
    pattern: input.pattern, caseInsensitive: input.case_insensitive, root: root.displayPath, mode: input.output_mode, offset: input.offset, result,
    maxLineLength: config.readMaxLineLength, maxBytes: config.readMaxBytes,
  }
}
