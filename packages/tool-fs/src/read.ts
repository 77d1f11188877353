import { FsError, type FsInfo, type FsTarget, type FsVersion, fsError } from '@deepseek-ai/dsh-fs'
import { countLines, fsRefused, observe, PdfThreads, type ReadWindow, textUnderDecoding, type WindowOptions } from '@deepseek-ai/dsh-tool-text'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { inspectForRead, mediaByBytes, mediaRead } from './media/read-media'
import { type ReadData, type ReadReply, renderReadReply } from './render'
import { type FsCall, fsTool, type Refused } from './skeleton'
import { countTargetLines, LineIndex, lineFromEnd, seenOfWindow, skipLinesIndexed } from '@deepseek-ai/dsh-tool-text'
import { buildWindow } from './window'

export const readInput = z.object({
  file_path: z.string().describe('The file to show: absolute, or relative to the working directory.'),
  offset: z.number().int().optional()
    .describe('The line number to start from (1-based). Default 1. A negative offset counts from the end: -10 starts at the tenth line from the last.'),
  limit: z.number().int().min(1).optional().describe('How many lines to show. Default and maximum: the line limit of this tool.'),
  column: z.number().int().min(1).optional()
    .describe('The character (1-based) of line offset to start from, to see the rest of a line shown cut. Default 1.'),
  pages: z.string().optional()
    .describe('PDF only: the pages to show, "N" or "N-M" (1-based). Default: from page 1, as many pages as the byte budget of one call holds.'),
})

type ReadInput = z.output<typeof readInput>

/**
 * `read`: one `inspect` (the stat, with the text of a small file) routes the call. A miss is an
 * observation (`absent`) that lets the policy allow a guarded create; a regular file is windowed and recorded `present` at the stat's version.
 * No second stat confirms it: a writer racing the read can only make a later guarded edit stale.
 * Read-only toward the files; what it records is the session's own policy state, not the environment.
 */
export function readTool(ctx: Context, config: Config) {
  const lines = new LineIndex()
  const media = new PdfThreads()
  ctx.effect(() => () => media.dispose(), 'read: PDF threads')
  return fsTool(ctx, config, {
    name: 'read', title: 'Read file', kind: 'look', inputSchema: readInput,
    description: 'Shows a text file with numbered lines, like `cat -n` (number, tab, text); the numbers are not part of the file. '
      + `Returns up to ${config.readLimit} lines from offset; a longer file ends with the offset to continue from. `
      + 'A line longer than the line limit is shown cut; column shows the rest of it. A directory is listed. '
      + (config.readMedia ? 'A PNG, JPEG, GIF or WebP image is shown as an image (downscaled when too large); a PDF as the text of its pages (see pages). ' : '')
      + 'Call this tool on a file before changing it with the dsh `edit` or `write` tool: they refuse an existing file '
      + 'that this tool has not shown in the session.',
  }, { run: (_ctx, _config, input, call) => readOrMedia(ctx, config, { lines, media }, input, call), render: renderReadReply })
}

/** What the read tool keeps between calls: the line index of files read, and its PDF threads. */
interface ReadState {
  lines: LineIndex
  media: PdfThreads
}

/** The read, or, when it failed as not text, the image or PDF the file's bytes are (with `readMedia`). */
async function readOrMedia(ctx: Context, config: Config, state: ReadState, input: ReadInput, call: FsCall): Promise<ReadReply | Refused> {
  try {
    return await readPath(ctx, config, state, input, call)
  } catch (error) {
    const late = await mediaByBytes(ctx, config, state.media, error, input, call.exec)
    if (late === undefined) throw error
    return { kind: 'media', result: late }
  }
}

/** Routes the call by the provider's one step: target, stat and, for a small file, its text. */
async function readPath(ctx: Context, config: Config, { lines, media }: ReadState, input: ReadInput, call: FsCall): Promise<ReadReply | Refused> {
  const { exec } = call
  const inspected = await inspectForRead(ctx, input.file_path, exec, config)
  const { target, info } = inspected
  call.target = target
  const path = target.displayPath
  if (info === undefined) {
    observe(ctx, target, { kind: 'absent' }, exec)
    throw fsError('FS_NOT_FOUND', { path })
  }
  if (info.type === 'directory') {
    // Shown as a listing, so the next call can name a file in it; nothing is recorded as read.
    return { kind: 'directory', data: { path, entries: await ctx.fs.listDir(target, exec.signal), limit: config.readLimit } }
  }
  // Decided from the stat alone: a FIFO or device is never opened, so nothing can block.
  if (info.type !== 'file') return fsRefused('read', fsError('FS_NOT_REGULAR_FILE', { path }), { kind: 'not-a-file', nature: { kind: 'special', info } }, path)
  const { result, text } = await mediaRead(ctx, config, media, { ...inspected, target, info }, input, exec)
  if (result !== undefined) return { kind: 'media', result }
  return { kind: 'file', data: await readFile(ctx, config, lines, input, { target, info, text, exec: call.exec }) }
}

interface Opened {
  target: FsTarget
  info: FsInfo
  /** The whole text, when the file is small enough to come with the stat. */
  text: string | undefined
  exec: FsCall['exec']
}

/** A regular file's window, recorded as what the session was shown of the stat's version. */
async function readFile(ctx: Context, config: Config, lines: LineIndex, input: ReadInput, file: Opened): Promise<ReadData> {
  const { target, info, text, exec } = file
  // A position from the end needs the line count first: known from the text of a small file, else one pass over the bytes.
  const asked = input.offset ?? 1
  const counted = asked >= 1 ? undefined : text !== undefined ? countLines(text) : await countTargetLines(ctx.fs, target, exec.signal)
  const offset = counted === undefined ? asked : lineFromEnd(asked, counted)
  const column = input.column === undefined ? {} : { column: input.column }
  const limit = Math.min(input.limit ?? config.readLimit, config.readLimit)
  const limits = { maxLineLength: config.readMaxLineLength, maxBytes: config.readMaxBytes }
  const window = await windowOf(ctx, { target, version: info.version, text, lines }, { offset, firstLine: 1, limit, ...limits, ...column }, exec)
  // The whole text is in memory already: counting its line feeds costs no I/O.
  const totalLines = window.totalLines ?? counted ?? (text === undefined ? undefined : countLines(text))
  observe(ctx, target, { kind: 'present', version: info.version, seen: seenOfWindow(window.lines, totalLines) }, exec)
  return {
    path: target.displayPath, offset, ...column, window, ...limits,
    ...(totalLines === undefined ? {} : { totalLines }),
    ...(counted === undefined ? {} : { fromEnd: asked }),
  }
}

/**
 * The window of a read. Large files: the lines before it are skipped as bytes, never decoded. A
 * large file whose bytes are not UTF-8 may be text in a legacy encoding the call allows; it is then
 * decoded whole (`textUnderDecoding`, bounded by the provider's text limit).
 */
async function windowOf(ctx: Context, file: { target: FsTarget; version: FsVersion; text: string | undefined; lines: LineIndex },
  windowing: WindowOptions, exec: FsCall['exec']): Promise<ReadWindow> {
  const { target, text } = file
  const { signal } = exec
  if (text !== undefined) return buildWindow([text], windowing)
  try {
    const source = await skipLinesIndexed(file.lines, { fs: ctx.fs, target, version: file.version, signal }, windowing.offset)
    return await buildWindow(source.chunks, { ...windowing, firstLine: source.firstLine })
  } catch (error) {
    if (!FsError.is(error, 'FS_NOT_TEXT')) throw error
    return buildWindow([await textUnderDecoding(ctx.fs, target, exec, error)], windowing)
  }
}
