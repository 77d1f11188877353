import { type FsEditOutcome } from '@deepseek-ai/dsh-fs'
import { changedRegion } from '@deepseek-ai/dsh-fs/kit'
import {
  type ArgumentProblem, argumentRefused, decodingOf, editedObservation, MULTI_EDIT_SNIPPETS, type MultiEditedReport, observe, printedProblem, snippetLines,
} from '@deepseek-ai/dsh-tool-text'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { renderChange, snippetOptions } from './edit'
import { editIntent } from './intent'
import { type FsCall, fsTool, type Refused } from './skeleton'

export const multiEditInput = z.object({
  file_path: z.string().describe('The file to change: absolute, or relative to the working directory.'),
  edits: z.array(z.object({
    old_string: z.string().describe('The exact text to replace, copied from the file (without line numbers).'),
    new_string: z.string().describe('The text to put in its place.'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
  }).strict()).min(1).describe('Edits applied in order, each to the result of the ones before; all of them or none are written.'),
})

const DESCRIPTION = 'Make several exact-text replacements in one file at once. They apply in order, each to the result of the previous ones; '
    + 'if any one fails, none is written. Same rules as the dsh `edit` tool: show the file with the dsh `read` tool first, and each '
    + 'old_string must occur once unless replace_all.'

type MultiEditInput = z.output<typeof multiEditInput>

/**
 * `multi_edit`: several literal edits of one file, applied in order to one snapshot and published
 * once under one version guard from `fs/edit-intent`, like `edit`. If any edit fails nothing is
 * written and the error names it (`edits[i]`).
 */
export function multiEditTool(ctx: Context, config: Config) {
  // The provider names the failed step (`edits[i]`); nothing was written. A failed match is
  // shown against the text the steps before it made, like `edit` shows it against the file.
  return fsTool(ctx, config, { name: 'multi_edit', title: 'Edit file in several places', kind: { change: { idempotent: false } }, inputSchema: multiEditInput, description: DESCRIPTION },
    { run: multiEdited, render: renderChange, quoted: (input) => ({ edits: requests(input) }) })
}

const requests = (input: MultiEditInput) => input.edits.map((edit) => ({ oldString: edit.old_string, newString: edit.new_string, replaceAll: edit.replace_all }))

async function multiEdited(ctx: Context, config: Config, input: MultiEditInput, call: FsCall): Promise<MultiEditedReport | Refused> {
  const problem = input.edits.map((edit, index) => editProblem(edit, index)).find((found) => found !== undefined)
  if (problem !== undefined) return argumentRefused(problem)
  const { target, expected } = await editIntent(ctx, input.file_path, call)
  const outcome = await ctx.fs.editTextMany(target, requests(input), { expected, signal: call.exec.signal, decoding: decodingOf(call.exec) })
  const report = await multiEditedReport(target.displayPath, input.edits.length, outcome, config)
  // The snippets of the reply are lines of the new version shown: they count as seen.
  const shown = [...(report.steps ?? []).flatMap((step) => step.snippet), ...(report.merged?.snippet ?? [])]
  observe(ctx, target, editedObservation(expected, outcome, shown), call.exec)
  return report
}

/** An edit refused before anything is asked of the file: one that changes nothing, or text `read` printed. */
function editProblem(edit: MultiEditInput['edits'][number], index: number): ArgumentProblem | undefined {
  if (edit.old_string === edit.new_string) return { kind: 'identical', family: 'fs', step: index }
  return printedProblem(edit.new_string, { family: 'fs', argument: `edits[${index}].new_string` }, { argument: `edits[${index}].old_string`, text: edit.old_string })
}

/**
 * What a multi-edit did, per edit: the provider's `steps` give where each edit landed in the final
 * text, at any file size. A provider without them gets the one region between the lines kept at
 * both ends, from the old text when it returned it.
 */
async function multiEditedReport(path: string, edits: number, outcome: FsEditOutcome, config: Config): Promise<MultiEditedReport> {
  const report: MultiEditedReport = { kind: 'multi-edited', path, edits, replacements: outcome.replacements }
  const options = snippetOptions(config)
  if (outcome.steps !== undefined) {
    report.steps = []
    for (const [index, step] of outcome.steps.entries()) {
      const spans = step.changes.map((change) => ({ start: change.line, end: change.line + change.addedLines - 1 }))
      const snippet = index < MULTI_EDIT_SNIPPETS ? await snippetLines(outcome.after, spans[0], options) : []
      report.steps.push({ index, replacements: step.replacements, spans, snippet })
    }
    return report
  }
  if (outcome.before === null) return report
  const region = changedRegion(outcome.before, outcome.after)
  if (region === undefined) return report
  const span = { start: region.line, end: region.line + region.addedLines - 1 }
  report.merged = { span, removed: region.removedLines, snippet: await snippetLines(outcome.after, span, options) }
  return report
}
