import { FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { defineTool, ToolError } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { changedRegions, renderMultiEdit } from './multi-edit-render'
import { resolveTarget } from './paths'
import { multiEditRefusal } from './multi-edit-refusal'

export const multiEditInput = z.object({
  file_path: z.string().describe('The file to change: absolute, or relative to the working directory.'),
  edits: z.array(z.object({
    old_string: z.string().describe('The exact text to replace, copied from the file (without line numbers).'),
    new_string: z.string().describe('The text to put in its place.'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
  }).strict()).min(1).describe('Edits applied in order, each to the result of the ones before; all of them or none are written.'),
})

/**
 * `multi_edit`: several literal edits of one file, applied in order to one snapshot and published
 * once under one version guard from `fs/edit-intent`, like `edit`. If any edit fails nothing is
 * written and the error names it (`edits[i]`).
 */
export function multiEditTool(ctx: Context, config: Config) {
  return defineTool({
    name: 'multi_edit',
    title: 'Edit file in several places',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    description: 'Make several exact-text replacements in one file at once. They apply in order, each to the result of the previous ones; '
      + 'if any one fails, none is written. Same rules as the dsh `edit` tool: show the file with the dsh `read` tool first, and each '
      + 'old_string must occur once unless replace_all.',
    inputSchema: multiEditInput,
    concurrency: 'exclusive',
    async execute(input, exec) {
      for (const [index, edit] of input.edits.entries()) {
        if (edit.old_string === edit.new_string) {
          throw new ToolError('INVALID_ARGUMENTS', `edits[${index}]: old_string and new_string are identical, so the edit would change nothing; `
            + 'remove it or change its new_string. Nothing was written.')
        }
      }
      let target: FsTarget | undefined
      try {
        target = await resolveTarget(ctx, input.file_path, exec)
        const expected = await ctx.waterfall('fs/edit-intent', target, exec, () => undefined)
        const outcome = await ctx.fs.editTextMany(
          target,
          input.edits.map((edit) => ({ oldString: edit.old_string, newString: edit.new_string, replaceAll: edit.replace_all })),
          expected,
          exec.signal,
        )
        ctx.emit('fs/observed', target, { kind: 'present', version: outcome.version }, exec)
        return renderMultiEdit({
          path: target.displayPath,
          edits: input.edits.length,
          replacements: outcome.replacements,
          ...(outcome.before === null ? {} : { regions: await changedRegions(outcome.before, outcome.after, config.editSnippetContext, config.readMaxLineLength) }),
          maxLineLength: config.readMaxLineLength,
        })
      } catch (error) {
        if (!FsError.is(error)) throw error
        return multiEditRefusal(ctx, config, error, input.edits, target, exec)
      }
    },
  })
}
