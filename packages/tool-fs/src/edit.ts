import { FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { defineTool, ToolError } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import { fromRegions, lineChanges, snippetAround } from './changes'
import type { Config } from './config'
import { mutationTarget } from './paths'
import { refusal } from './refusals'
import { renderEdit } from './render'

export const editInput = z.object({
  file_path: z.string().describe('The file to change: absolute, or relative to the working directory.'),
  old_string: z.string().describe('The exact text to replace, copied from the file (without line numbers).'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
})

/** The longest changed region a snippet shows before it stops. */
const SNIPPET_MAX_CHANGED = 12

/**
 * `edit`: the version guard comes from the `fs/edit-intent` waterfall (the policy refuses unseen
 * or absent targets there); the provider checks it before matching, so a stale edit is reported
 * stale and never as a match error. Zero stats in the tool, with or without the policy.
 */
export function editTool(ctx: Context, config: Config) {
  return defineTool({
    name: 'edit',
    title: 'Edit file',
    description: 'Replaces exact text in a file. old_string must match the file exactly (whitespace included) and occur once, '
      + 'unless replace_all is true. Show the file with the dsh `read` tool first; the change fails if the file changed since.',
    // Not idempotent: when new_string contains old_string, the same call again changes the file again.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    inputSchema: editInput,
    concurrency: 'exclusive',
    async execute(input, exec) {
      if (input.old_string === input.new_string) {
        throw new ToolError('INVALID_ARGUMENTS', 'old_string and new_string are identical, so this change would do nothing.')
      }
      let target: FsTarget | undefined
      try {
        target = await mutationTarget(ctx, input.file_path, exec)
        const expected = await ctx.waterfall('fs/edit-intent', target, exec, () => undefined)
        const outcome = await ctx.fs.editText(
          target,
          { oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all },
          expected,
          exec.signal,
        )
        ctx.emit('fs/observed', target, { kind: 'present', version: outcome.version }, exec)
        // Where the edit landed comes from the provider, at any file size: no diff of whole texts here.
        // A provider without line data gets the one-region count, when it returned the old text.
        const changes = outcome.lineTotals !== undefined
          ? fromRegions(outcome.lineTotals, outcome.changes?.[0])
          : outcome.before === null ? undefined : lineChanges(outcome.before, outcome.after)
        return renderEdit({
          path: target.displayPath,
          replacements: outcome.replacements,
          ...(changes === undefined ? {} : { changes }),
          snippet: await snippetAround(outcome.after, changes?.first, snippetOptions(config)),
          maxLineLength: config.readMaxLineLength,
        })
      } catch (error) {
        if (FsError.is(error)) return refusal(ctx, config, error, { tool: 'edit', target, exec, oldString: input.old_string })
        throw error
      }
    },
  })
}

/** How `edit` and `write` show the lines around a change. */
export function snippetOptions(config: Config) {
  return { context: config.editSnippetContext, maxChanged: SNIPPET_MAX_CHANGED, maxLineLength: config.readMaxLineLength }
}
