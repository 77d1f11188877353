import { fetchMedia, inspectPath, mediaObservation, namedAsMedia, showMedia } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution, ToolResult } from '@deepseek-ai/dsh-tools'
import type { EditorReply } from './render'
import type { Editor, Refused } from './runtime'
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
  const result = await showMedia(found, target.displayPath, { limits: config, budget: config.viewMaxBytes, signal: exec.signal, pdfThreads: editor.pdfThreads, pageArgument: 'view_range', ...(pages === undefined ? {} : { pages }) })
  if (result !== undefined) editor.observe(target, mediaObservation(info.version), exec)
  return result
}

/**
 * A `view` refused as not text, of a file whose name did not say image or PDF: shown as the image
 * or PDF its bytes are (with `readMedia`), else the refusal stands.
 */
export async function mediaOr(editor: Editor, input: Input, exec: ToolExecution, refused: Refused): Promise<EditorReply | Refused> {
  if (!editor.config.readMedia || refused.code !== 'FS_NOT_TEXT' || namedAsMedia(input.path)) return refused
  const media = await viewMedia(editor, input, exec, true)
  return media === undefined ? refused : { kind: 'media', result: media }
}
