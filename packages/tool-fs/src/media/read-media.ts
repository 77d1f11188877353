import { FsError, type FsInfo, type FsInspection, type FsTarget } from '@deepseek-ai/dsh-fs'
import { decodeText } from '@deepseek-ai/dsh-fs/kit'
import { decodingOf, fetchMedia, inspectPath, mediaObservation, namedAsMedia, observe, type PdfThreads, showMedia } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution, ToolResult } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import type { Config } from '../config'

/**
 * The read's one step: for a path named as an image or PDF, the raw bytes (up to
 * `readMediaMaxBytes`), so that showing it costs no second request; else the text as before.
 */
export function inspectForRead(ctx: Context, path: string, exec: ToolExecution, config: Config): Promise<FsInspection> {
  return config.readMedia && namedAsMedia(path)
    ? inspectPath(ctx, path, exec, config.readMediaMaxBytes, 'bytes')
    : inspectPath(ctx, path, exec, config.readStreamThreshold)
}

export interface MediaFound {
  target: FsTarget
  info: FsInfo
  /** The text or the bytes `inspectForRead` brought, if it did. */
  text?: string | undefined
  bytes?: Uint8Array | undefined
}

/**
 * The media part of a read of a regular file: `result` for an image or PDF (recorded as observed,
 * whole), else the file's text if the inspection brought it (decoded here when it brought the
 * bytes, for a file named as media that turned out to be text).
 * `late`: the file failed as text, and its name did not say media (see `mediaByBytes`).
 */
export async function mediaRead(
  ctx: Context, config: Config, pdfThreads: PdfThreads, found: MediaFound, input: { pages?: string | undefined }, exec: ToolExecution, late = false,
): Promise<{ result?: ToolResult; text?: string }> {
  const { target, info } = found
  const path = target.displayPath
  const fetch = config.readMedia && found.bytes === undefined && (late || namedAsMedia(path))
  const bytes = fetch ? await fetchMedia(ctx.fs, target, info, config, exec.signal) : found.bytes
  if (bytes === undefined) return found.text === undefined ? {} : { text: found.text }
  const result = await showMedia(bytes, path, { limits: config, budget: config.readMaxBytes, signal: exec.signal, pdfThreads, ...(input.pages === undefined ? {} : { pages: input.pages }) })
  if (result === undefined) return late || found.bytes === undefined ? {} : { text: decodeText(found.bytes, path, decodingOf(exec)).text }
  observe(ctx, target, mediaObservation(info.version), exec)
  return { result }
}

/**
 * A read that failed as not text, of a path not named as media: an image or PDF is shown by its
 * bytes all the same, at the cost of a second step (the first one decoded, and failed). `undefined`
 * for anything else, which keeps the text failure.
 */
export async function mediaByBytes(
  ctx: Context, config: Config, pdfThreads: PdfThreads, error: unknown, input: { file_path: string; pages?: string | undefined }, exec: ToolExecution,
): Promise<ToolResult | undefined> {
  if (!config.readMedia || !FsError.is(error, 'FS_NOT_TEXT') || namedAsMedia(input.file_path)) return undefined
  const { target, info, bytes } = await inspectPath(ctx, input.file_path, exec, config.readMediaMaxBytes, 'bytes')
  if (info?.type !== 'file') return undefined
  return (await mediaRead(ctx, config, pdfThreads, { target, info, ...(bytes === undefined ? {} : { bytes }) }, input, exec, true)).result
}
