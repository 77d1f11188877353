import type {} from '@deepseek-ai/dsh-fs'
import type {} from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import type { z } from 'zod'
import { Config } from './config'
import { editTool } from './edit'
import { FS_PROMPT_SECTION } from './prompt'
import { readTool } from './read'
import { writeTool } from './write'

export { Config } from './config'
export { readInput } from './read'
export { writeInput } from './write'
export { editInput } from './edit'
// Building blocks for sibling tool families (str_replace_editor numbers and windows lines the same way).
export { buildWindow, skipLines, type SkippedSource, cutCodePoints, linePrefix, type ReadWindow, type WindowLine, type WindowOptions } from './window'
export { LineIndex, type Checkpoint, type LineIndexOptions } from './line-index'
export { skipLinesIndexed, type PagedTarget } from './paging'
export { countLines, lineChanges, type LineChanges, snippetAround, type SnippetOptions } from './changes'
export { resolveTarget } from './paths'
export type { FsTarget } from '@deepseek-ai/dsh-fs'
export type { ToolDefinition } from '@deepseek-ai/dsh-tools'

export const name = 'dsh-tool-fs'
export const inject = ['tools', 'fs', 'systemPrompt']

/**
 * Registers `read`, `write` and `edit`. The tools talk to `ctx.fs` directly and consult the policy
 * only through the `fs/*` events, so they work (unconstrained) when no policy is loaded.
 */
export function apply(ctx: Context, config: z.input<typeof Config>): void {
  const options = Config.parse(config)
  ctx.tools.register(readTool(ctx, options))
  ctx.tools.register(writeTool(ctx, options))
  ctx.tools.register(editTool(ctx, options))
  ctx.systemPrompt.section(FS_PROMPT_SECTION)
}

export default { name, inject, Config, apply }
