import type {} from '@deepseek-ai/dsh-fs'
import { pinServices } from '@deepseek-ai/dsh-tools'
import { RUNTIME_WORDS, withEncodings } from '@deepseek-ai/dsh-tool-text'
import type { Context } from 'cordis'
import type { z } from 'zod'
import { applyPatchTool } from './apply-patch'
import { Config } from './config'
import { encodingArgument } from './encoding'
import { editTool } from './edit'
import { globTool } from './glob'
import { grepTool } from './grep'
import { listTool } from './list'
import { multiEditTool } from './multi-edit'
import { APPLY_PATCH_PROMPT_SECTION, FS_PROMPT_SECTION } from './prompt'
import { readTool } from './read'
import { writeTool } from './write'

export { Config } from './config'
export { readInput } from './read'
export { writeInput } from './write'
export { editInput } from './edit'
export { globInput } from './glob'
export { grepInput } from './grep'
export { listInput } from './list'
export { multiEditInput } from './multi-edit'
export { applyPatchInput } from './apply-patch'
export { parsePatch, type PatchHunk, type PatchSection, PatchSyntaxError } from './patch/parse'
export { countLines, lineChanges, type LineChanges, snippetAround, type SnippetOptions } from './changes'
export type { FsTarget } from '@deepseek-ai/dsh-fs'
export type { ToolDefinition } from '@deepseek-ai/dsh-tools'

export const name = 'dsh-tool-fs'
export const inject = ['tools', 'fs', 'systemPrompt']

/**
 * Registers `read`, `write`, `edit`, `multi_edit`, the discovery tools `glob`, `grep`, `list`
 * (each group can be turned off in the config) and, when configured, `apply_patch`. Discovery never counts as an observation. The tools talk to `ctx.fs` directly and consult the policy
 * only through the `fs/*` events, so they work (unconstrained) when no policy is loaded.
 */
export function apply(ctx: Context, config: z.input<typeof Config>): void {
  const options = Config.parse(config)
  // What the calls use, read once (registrations stay on `ctx`, so they go with this plugin).
  const calls = pinServices(ctx, ['fs'])
  // Each call of the text tools runs under its encoding choice (argument, configuration); a read names a legacy encoding.
  const encodings = { argument: encodingArgument }
  // The runtime's own refusals (an unknown tool, invalid arguments) in dsh-tool-text's words, like every other.
  ctx.tools.useWords(RUNTIME_WORDS)
  ctx.tools.register(withEncodings(readTool(calls, options), options, { ...encodings, names: () => true }))
  ctx.tools.register(withEncodings(writeTool(calls, options), options, encodings))
  ctx.tools.register(withEncodings(editTool(calls, options), options, encodings))
  if (options.multiEdit) ctx.tools.register(withEncodings(multiEditTool(calls, options), options, encodings))
  if (options.applyPatch) ctx.tools.register(applyPatchTool(calls, options))
  if (options.discoveryTools) {
    ctx.tools.register(globTool(calls, options))
    ctx.tools.register(grepTool(calls, options))
    ctx.tools.register(listTool(calls, options))
  }
  ctx.systemPrompt.section(FS_PROMPT_SECTION)
  if (options.applyPatch) ctx.systemPrompt.section(APPLY_PATCH_PROMPT_SECTION)
}

export default { name, inject, Config, apply }
