import { editIndexOf, FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { applyEdits } from '@deepseek-ai/dsh-fs/kit'
import { nearestRegion } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution, ToolResult } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import type { Config } from './config'
import type { multiEditInput } from './multi-edit'
import { refusal } from './refusals'
import { renderFailure } from './render'
import type { z } from 'zod'

type Edits = z.output<typeof multiEditInput>['edits']

/**
 * A refused `multi_edit`, told as `edit` tells it (a directory is named, an unseen file is sent to
 * `read`), and led by the failed step (`edits[i]: …`). A step that matched nothing shows the
 * closest text of the text that step met, that is after the steps before it, so the lines it shows
 * are the ones a corrected step would match.
 */
export async function multiEditRefusal(ctx: Context, config: Config, error: FsError, edits: Edits, target: FsTarget | undefined,
  exec: ToolExecution): Promise<ToolResult> {
  const index = editIndexOf(error)
  const failed = index === undefined ? undefined : edits[index]
  if (index === undefined || failed === undefined || target === undefined) return refusal(ctx, config, error, { tool: 'edit', target, exec })
  let result: ToolResult
  let numbered = false
  if (error.code === 'FS_EDIT_NOT_FOUND' && failed.old_string.length > 0) {
    const met = await textMet(ctx, target, edits.slice(0, index), exec.signal)
    const region = met === undefined ? undefined : nearestRegion(met, failed.old_string)
    numbered = region !== undefined
    result = met === undefined
      ? renderFailure('edit', error)
      : renderFailure('edit', error, { kind: 'nearest', region, maxLineLength: config.readMaxLineLength }, target.displayPath)
  } else {
    result = await refusal(ctx, config, error, { tool: 'edit', target, exec })
  }
  const part = result.content[0]
  if (part !== undefined && !part.text.startsWith('edits[')) {
    const after = index === 0 ? '' : numbered ? ` (line numbers as the text reads after edits[0..${index - 1}])` : ` (after edits[0..${index - 1}])`
    part.text = `edits[${index}]${after}: ${part.text}`
  }
  return result
}

/** The file's text with `earlier` applied, or undefined when it cannot be had (it changed, or is gone). */
async function textMet(ctx: Context, target: FsTarget, earlier: Edits, signal: AbortSignal | undefined): Promise<string | undefined> {
  try {
    const text = await ctx.fs.readText(target, signal)
    return applyEdits(text, earlier.map((edit) => ({ oldString: edit.old_string, newString: edit.new_string, replaceAll: edit.replace_all })), target.displayPath).text
  } catch (failure) {
    if (FsError.is(failure) && !FsError.is(failure, 'FS_ABORTED')) return undefined
    throw failure
  }
}
