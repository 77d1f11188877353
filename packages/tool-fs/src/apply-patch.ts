import { FsError } from '@deepseek-ai/dsh-fs'
import { type FsRefusal, type PatchFileReport, patchRefused, renderPatchReport } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { snippetOptions } from './edit'
import { parsePatch, type PatchSection, PatchSyntaxError } from './patch/parse'
import { planPatch, type PlanRefusal, PlanStop } from './patch/plan'
import { publishPatch } from './patch/publish'
import { refusal } from './refusals'
import { type FsCall, fsTool, type Refused } from './skeleton'

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
  return fsTool(ctx, config, APPLY_PATCH, { run: (_ctx, _config, input, call) => applied(ctx, config, input.input, call), render: renderPatch })
}

const APPLY_PATCH = { name: 'apply_patch', title: 'Apply a patch to files', description: DESCRIPTION, inputSchema: applyPatchInput, kind: { change: { idempotent: false } } } as const

const renderPatch = (files: PatchFileReport[], config: Config) => renderPatchReport(files, { maxLineLength: config.readMaxLineLength })

async function applied(ctx: Context, config: Config, text: string, { exec }: FsCall): Promise<PatchFileReport[] | Refused> {
  const limits = { maxLineLength: config.readMaxLineLength }
  let sections: PatchSection[]
  try {
    sections = parsePatch(text)
  } catch (error) {
    if (!(error instanceof PatchSyntaxError)) throw error
    return patchRefused('INVALID_ARGUMENTS', { kind: 'syntax', message: error.message })
  }
  if (sections.length === 0) return patchRefused('INVALID_ARGUMENTS', { kind: 'empty' })
  let planned
  try {
    planned = await planPatch(ctx, exec, sections)
  } catch (error) {
    if (error instanceof PlanStop) return refused(ctx, config, exec, error.refusal)
    throw error
  }
  const published = await publishPatch(ctx, exec, planned, snippetOptions(config))
  if (published.ok) return published.files
  const { failed } = published
  const reason = FsError.is(failed.error) || failed.error instanceof Error ? failed.error.message : String(failed.error)
  const code = FsError.is(failed.error) ? failed.error.code : 'FS_IO_ERROR'
  const partial = { changed: published.changed, failed: { path: failed.path, reason, uncertain: failed.uncertain }, untouched: published.untouched }
  return patchRefused(code, { kind: 'partial', partial, limits })
}

const ACTIONS = { add: 'Add File', delete: 'Delete File', update: 'Update File' } as const

const PROBLEM_CODES = { unsupported: 'UNSUPPORTED', duplicate: 'INVALID_ARGUMENTS', 'too-large': 'FS_TOO_LARGE' } as const

/** A refusal found before any write: which section, why, and the retry that works. */
async function refused(ctx: Context, config: Config, exec: ToolExecution, stop: PlanRefusal): Promise<Refused> {
  if (stop.kind === 'hunk') {
    const code = stop.failure.why.kind === 'ambiguous' ? 'FS_AMBIGUOUS_EDIT' : 'FS_EDIT_NOT_FOUND'
    return patchRefused(code, { kind: 'hunk', failure: stop.failure, limits: { maxLineLength: config.readMaxLineLength } })
  }
  const action = ACTIONS[stop.section.kind]
  if (stop.kind === 'problem') {
    const code = stop.problem.kind in PROBLEM_CODES ? PROBLEM_CODES[stop.problem.kind as keyof typeof PROBLEM_CODES] : 'FS_NOT_OBSERVED'
    return patchRefused(code, { kind: 'problem', section: { path: stop.path, index: stop.index, action }, problem: stop.problem })
  }
  // The provider's or policy's account, as the single-file tools give it (a stale refusal may show the current text).
  const tool = stop.section.kind === 'add' ? 'write' : 'edit'
  const account = await refusal(ctx, config, stop.error, { tool, target: stop.target, exec })
  const section = { path: stop.target?.displayPath ?? stop.section.path, index: stop.index, action }
  return patchRefused(stop.error.code, { kind: 'account', section, account: account.refused as FsRefusal })
}
