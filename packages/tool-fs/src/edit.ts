import { type FsEditOutcome } from '@deepseek-ai/dsh-fs'
import {
  argumentRefused, decodingOf, editedObservation, type EditedReport, type MutationReport, printedProblem, renderReport, SNIPPET_MAX_CHANGED, snippetLines, type SnippetOptions,
} from '@deepseek-ai/dsh-tool-text'
import type { Context } from 'cordis'
import { z } from 'zod'
import { fromRegions, lineChanges } from './changes'
import type { Config } from './config'
import { answerWhenPublished } from './answer'
import { editIntent } from './intent'
import { type FsCall, fsTool, type Refused } from './skeleton'

export const editInput = z.object({
  file_path: z.string().describe('The file to change: absolute, or relative to the working directory.'),
  old_string: z.string().describe('The exact text to replace, copied from the file (without line numbers).'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
})

const DESCRIPTION = 'Replaces exact text in a file. old_string must match the file exactly (whitespace included) and occur once, '
    + 'unless replace_all is true. Show the file with the dsh `read` tool first; the change fails if the file changed since.'

type EditInput = z.output<typeof editInput>

/**
 * `edit`: the version guard comes from the `fs/edit-intent` waterfall (the policy refuses unseen
 * or absent targets there); the provider checks it before matching, so a stale edit is reported
 * stale and never as a match error. Zero stats in the tool, with or without the policy.
 * Not idempotent: when new_string contains old_string, the same call again changes the file again.
 */
export function editTool(ctx: Context, config: Config) {
  return fsTool(ctx, config, { name: 'edit', title: 'Edit file', kind: { change: { idempotent: false } }, inputSchema: editInput, description: DESCRIPTION },
    { run: edited, render: renderChange, quoted: (input) => ({ oldString: input.old_string }) })
}

/** What `edit`, `multi_edit` and `write` did, in the family's words. */
export function renderChange(report: MutationReport, config: Config): string {
  return renderReport(report, 'fs', { maxLineLength: config.readMaxLineLength })
}

async function edited(ctx: Context, config: Config, input: EditInput, call: FsCall): Promise<EditedReport | Refused> {
  if (input.old_string === input.new_string) return argumentRefused({ kind: 'identical', family: 'fs' })
  // What `read` printed (line numbers, notes) is refused before anything is asked of the file.
  const printed = printedProblem(input.new_string, { family: 'fs', argument: 'new_string' }, { argument: 'old_string', text: input.old_string })
  if (printed !== undefined) return argumentRefused(printed)
  const { target, expected } = await editIntent(ctx, input.file_path, call)
  const answer = answerWhenPublished(ctx, target, call.exec, (outcome: FsEditOutcome, shown) => editedObservation(expected, outcome, shown),
    async (outcome: FsEditOutcome) => {
      const report = await editedReport(target.displayPath, outcome, config)
      return { report, shown: report.first?.snippet ?? [] }
    })
  const edit = { oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all }
  return answer.finish(await ctx.fs.editText(target, edit, { expected, signal: call.exec.signal, hooks: answer.hooks, decoding: decodingOf(call.exec) }))
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
