import { FOREIGN_NAMES } from './foreign-names'
import { type FsEditOutcome, FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { editedObservation, type EditedReport, printedRefusal, renderReport, SNIPPET_MAX_CHANGED, snippetLines, type SnippetOptions } from '@deepseek-ai/dsh-tool-text'
import { defineTool, ToolError } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import { fromRegions, lineChanges } from './changes'
import type { Config } from './config'
import { answerWhenPublished } from './answer'
import { mutationTarget } from './paths'
import { refusal } from './refusals'

export const editInput = z.object({
  file_path: z.string().describe('The file to change: absolute, or relative to the working directory.'),
  old_string: z.string().describe('The exact text to replace, copied from the file (without line numbers).'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
})

/**
 * `edit`: the version guard comes from the `fs/edit-intent` waterfall (the policy refuses unseen
 * or absent targets there); the provider checks it before matching, so a stale edit is reported
 * stale and never as a match error. Zero stats in the tool, with or without the policy.
 */
export function editTool(ctx: Context, config: Config) {
  return defineTool({
    name: 'edit',
    foreignNames: FOREIGN_NAMES.edit,
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
      // What `read` printed (line numbers, notes) is refused before anything is asked of the file.
      const printed = printedRefusal(input.new_string, { family: 'fs', argument: 'new_string' }, { argument: 'old_string', text: input.old_string })
      if (printed !== undefined) throw new ToolError('INVALID_ARGUMENTS', printed)
      let target: FsTarget | undefined
      try {
        target = await mutationTarget(ctx, input.file_path, exec)
        const expected = await ctx.waterfall('fs/edit-intent', target, exec, () => undefined)
        const { displayPath } = target
        const answer = answerWhenPublished(ctx, target, exec, (outcome: FsEditOutcome, shown) => editedObservation(expected, outcome, shown),
          (outcome: FsEditOutcome) => editedReport(displayPath, outcome, config)
            .then((report) => ({ text: renderReport(report, 'fs', { maxLineLength: config.readMaxLineLength }), shown: report.first?.snippet ?? [] })))
        const edit = { oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all }
        return await answer.finish(await ctx.fs.editText(target, edit, { expected, signal: exec.signal, hooks: answer.hooks }))
      } catch (error) {
        if (FsError.is(error)) return refusal(ctx, config, error, { tool: 'edit', target, exec, oldString: input.old_string })
        throw error
      }
    },
  })
}

/**
 * What an edit did, as data. Where it landed comes from the provider, at any file size: no diff of
 * whole texts here. A provider without line data gets the one-region count, when it returned the old text.
 */
async function editedReport(path: string, outcome: FsEditOutcome, config: Config): Promise<EditedReport> {
  const changes = outcome.lineTotals !== undefined
    ? fromRegions(outcome.lineTotals, outcome.changes?.[0])
    : outcome.before === null ? undefined : lineChanges(outcome.before, outcome.after)
  const report: EditedReport = { kind: 'edited', path, replacements: outcome.replacements }
  if (changes !== undefined) report.counts = { added: changes.added, removed: changes.removed }
  if (changes?.first !== undefined) report.first = { span: changes.first, snippet: await snippetLines(outcome.after, changes.first, snippetOptions(config)) }
  return report
}

/** How `edit`, `multi_edit` and `write` show the lines around a change: the one rule of both families, with this tool's context. */
export function snippetOptions(config: Config): SnippetOptions {
  return { context: config.editSnippetContext, maxChanged: SNIPPET_MAX_CHANGED, maxLineLength: config.readMaxLineLength }
}
