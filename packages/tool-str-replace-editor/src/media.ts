import { fetchMedia, inspectPath, mediaObservation, showMedia } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution, ToolResult } from '@deepseek-ai/dsh-tools'
import type { Editor } from './runtime'
import type { Input } from './schema'

/**
 * `view` of an image or PDF, as `read` shows it (the same code): the image with its dimensions,
 * or the text of a PDF's pages, `view_range` naming the pages. One step brings the bytes of a file
 * named as media; `late` (a file that failed as text) fetches them. Recorded as observed, whole.
 * `undefined` when the path is no image or PDF: the caller goes on as for text.
 */
export async function viewMedia(editor: Editor, input: Input, exec: ToolExecution, late = false): Promise<ToolResult | undefined> {
  const { config, ctx } = editor
  const { target, info, bytes } = await inspectPath(ctx, input.path, exec, late ? 0 : config.readMediaMaxBytes, 'bytes')
  if (info?.type !== 'file') return undefined
  const found = bytes ?? await fetchMedia(ctx.fs, target, info, config, exec.signal)
  if (found === undefined) return undefined
  const range = input.view_range
  const pages = range === undefined ? undefined : `${range[0]}-${range[1] === -1 ? '' : range[1]}`
  const result = await showMedia(found, target.displayPath, { limits: config, budget: config.viewMaxBytes, ...(pages === undefined ? {} : { pages }) })
  if (result !== undefined) editor.observe(target, mediaObservation(info.version), exec)
  return result
}

/** A `view` that failed as not text: the image or PDF its bytes are, else `refusal` thrown. */
export async function mediaOr(editor: Editor, input: Input, exec: ToolExecution, refusal: Error): Promise<ToolResult> {
  const media = editor.config.readMedia ? await viewMedia(editor, input, exec, true) : undefined
  if (media === undefined) throw refusal
  return media
}
