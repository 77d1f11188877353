import { FsError } from '@deepseek-ai/dsh-fs'
import {
  patchProblemText, renderPatchHunkFailure, renderPatchPartial, renderPatchRefusal, renderPatchReport,
} from '@deepseek-ai/dsh-tool-text'
import { defineTool, errorResult, textResult, type ToolExecution, type ToolResult } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { snippetOptions } from './edit'
import { parsePatch, type PatchSection, PatchSyntaxError } from './patch/parse'
import { planPatch, type PlanRefusal, PlanStop } from './patch/plan'
import { publishPatch } from './patch/publish'
import { refusal } from './refusals'

export const applyPatchInput = z.object({
  input: z.string().describe('The whole patch, from "*** Begin Patch" to "*** End Patch".'),
})

const DESCRIPTION = [
  'Changes several files at once with a patch in Codex\'s patch format: all of it or nothing. The patch is',
  '*** Begin Patch',
  '*** Add File: <path>  (then the new file\'s lines, each starting with +)',
  '*** Delete File: <path>',
  '*** Update File: <path>  (optionally followed by *** Move to: <new path>), then hunks: a line @@ or @@ <a line of the file above the change>,',
  'then the lines around and in the change, each starting with \' \' (kept), \'-\' (removed) or \'+\' (added); *** End of File after a hunk that ends the file',
  '*** End Patch',
  'Kept and removed lines must match the file exactly, whitespace included, and in one place. Show every file you update or',
  'delete with the dsh `read` tool first; Add never overwrites and Move never replaces an existing file.',
].join('\n')

/**
 * `apply_patch`: Codex's patch format with every guard of the single-file tools. Every section is
 * checked first (`planPatch`: reads, guards, hunks); a refusal there writes nothing. Then the files
 * are published one at a time (`publishPatch`), each under its own guard; if one fails, the result
 * says exactly which files changed.
 */
export function applyPatchTool(ctx: Context, config: Config) {
  return defineTool({
    name: 'apply_patch',
    title: 'Apply a patch to files',
    description: DESCRIPTION,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    inputSchema: applyPatchInput,
    concurrency: 'exclusive',
    async execute(input, exec) {
      let sections: PatchSection[]
      try {
        sections = parsePatch(input.input)
      } catch (error) {
        if (!(error instanceof PatchSyntaxError)) throw error
        return errorResult(`The patch is not in the apply_patch format (${error.message}). Nothing was written; fix it and send the whole patch again.`, 'INVALID_ARGUMENTS')
      }
      if (sections.length === 0) {
        return errorResult('The patch names no file: put at least one *** Add File, *** Delete File or *** Update File section between its markers.', 'INVALID_ARGUMENTS')
      }
      const limits = { maxLineLength: config.readMaxLineLength }
      let planned
      try {
        planned = await planPatch(ctx, exec, sections)
      } catch (error) {
        if (error instanceof PlanStop) return refused(ctx, config, exec, error.refusal)
        throw error
      }
      const published = await publishPatch(ctx, exec, planned, snippetOptions(config))
      if (published.ok) return textResult(renderPatchReport(published.files, limits))
      const { failed } = published
      const reason = FsError.is(failed.error) || failed.error instanceof Error ? failed.error.message : String(failed.error)
      const code = FsError.is(failed.error) ? failed.error.code : 'FS_IO_ERROR'
      return errorResult(renderPatchPartial({ changed: published.changed, failed: { path: failed.path, reason, uncertain: failed.uncertain }, untouched: published.untouched }, limits), code)
    },
  })
}

const ACTIONS = { add: 'Add File', delete: 'Delete File', update: 'Update File' } as const

/** The text of a refusal found before any write: which section, why, and the retry that works. */
async function refused(ctx: Context, config: Config, exec: ToolExecution, stop: PlanRefusal): Promise<ToolResult> {
  const limits = { maxLineLength: config.readMaxLineLength }
  if (stop.kind === 'hunk') {
    const code = stop.failure.why.kind === 'ambiguous' ? 'FS_AMBIGUOUS_EDIT' : 'FS_EDIT_NOT_FOUND'
    return errorResult(`apply_patch wrote nothing. ${renderPatchHunkFailure(stop.failure, limits)}`, code)
  }
  const action = ACTIONS[stop.section.kind]
  if (stop.kind === 'problem') {
    const code = stop.problem.kind === 'unsupported' ? 'UNSUPPORTED' : stop.problem.kind === 'duplicate' ? 'INVALID_ARGUMENTS' : stop.problem.kind === 'too-large' ? 'FS_TOO_LARGE' : 'FS_NOT_OBSERVED'
    return errorResult(renderPatchRefusal(stop.path, stop.index, action, patchProblemText(stop.path, stop.problem)), code)
  }
  // The provider's or policy's account, as the single-file tools give it (a stale refusal may show the current text).
  const tool = stop.section.kind === 'add' ? 'write' : 'edit'
  const account = await refusal(ctx, config, stop.error, { tool, target: stop.target, exec })
  const text = account.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
  return errorResult(renderPatchRefusal(stop.target?.displayPath ?? stop.section.path, stop.index, action, text), stop.error.code)
}
