import { FsError, type FsInfo, type FsTarget } from '@deepseek-ai/dsh-fs'
import { cutListing } from '@deepseek-ai/dsh-fs/kit'
import {
  countTargetLines, editorRefused, LineIndex, lineFromEnd, namedAsMedia, rangeWindow, seenOfWindow, skipLinesIndexed, type TextWindow, textUnderDecoding, type WindowLimits,
} from '@deepseek-ai/dsh-tool-text'
import { isRefusal, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { mediaOr, viewMedia } from './media'
import type { EditorReply } from './render'
import { type Editor, invalid, type Refused, refusedAs } from './runtime'
import type { Input } from './schema'

/** Line starts found by earlier views, per editor (one per plugin instance, hence per provider). */
const indexes = new WeakMap<Editor, LineIndex>()

/**
 * `view`: one `stat` routes the call. Nothing there → `absent` is recorded and the call is refused
 * `FS_NOT_FOUND`; a directory is listed; a file is shown as a numbered window and recorded present
 * at the stat's version (a writer racing the read can at worst make the next edit spuriously stale).
 * Bytes that are not UTF-8 may be text in a legacy encoding the call allows: then decoded whole.
 */
export async function view(editor: Editor, input: Input, exec: ToolExecution): Promise<EditorReply | Refused> {
  const range = input.view_range
  const shape = range === undefined ? undefined : rangeShape(range)
  if (shape !== undefined) return shape
  const media = editor.config.readMedia && namedAsMedia(input.path) ? await viewMedia(editor, input, exec) : undefined
  if (media !== undefined) return { kind: 'media', result: media }
  const target = await editor.resolve(input.path, exec)
  const info = await editor.ctx.fs.stat(target, exec.signal)
  if (info === undefined) return editor.absent(target, exec)
  if (info.type === 'directory') {
    if (range !== undefined) return invalid({ kind: 'view-range-on-directory' })
    return listTwoLevels(editor, target, exec)
  }
  if (info.type !== 'file') return editorRefused('FS_NOT_REGULAR_FILE', { kind: 'not-regular-file', path: target.displayPath, info })
  const viewed = await viewFile(editor, { target, info, exec }, range)
  return isRefusal(viewed) ? mediaOr(editor, input, exec, viewed) : viewed
}

interface Viewed {
  target: FsTarget
  info: FsInfo
  exec: ToolExecution
}

/** The lines a file `view` asks for: a position below 1 (other than the end's -1) needs the line count, from the end or named with it. */
async function linesAsked(editor: Editor, { target, exec }: Viewed, range: number[] | undefined) {
  const total = range !== undefined && (range[0]! < 1 || range[1]! < -1) ? await countTargetLines(editor.ctx.fs, target, exec.signal) : undefined
  if (total !== undefined && range![0] === 0) return invalid({ kind: 'view-range-start', range: range!, total })
  const start = total === undefined ? range?.[0] ?? 1 : lineFromEnd(range![0]!, total)
  const end = range === undefined || range[1] === -1 ? undefined : total === undefined ? range[1] : lineFromEnd(range[1]!, total)
  if (end !== undefined && end < start) return invalid({ kind: 'view-range-end-before-start', range: range! })
  return { start, end, total }
}

/** A file's window, recorded as what the session was shown of the stat's version. */
async function viewFile(editor: Editor, file: Viewed, range: number[] | undefined): Promise<EditorReply | Refused> {
  const asked = await linesAsked(editor, file, range)
  if (isRefusal(asked)) return asked
  const { start, end, total } = asked
  // One line asked for by its number: shown whole up to the byte budget, so a line cut in a wider
  // view can be seen to its end (the canonical arguments have no column).
  const limits = end === start ? { ...editor.window, maxLineLength: Math.max(editor.window.maxLineLength, editor.window.maxBytes) } : editor.window
  const window = await windowOf(editor, file, start, end, limits)
  if (isRefusal(window)) return window
  const past = range === undefined ? undefined : pastTheEnd(range, start, end, window.totalLines)
  if (past !== undefined) return past
  editor.observe(file.target, { kind: 'present', version: file.info.version, seen: seenOfWindow(window.lines, window.totalLines ?? total) }, file.exec)
  const fromEnd = total === undefined ? undefined : { range: range!, total }
  return { kind: 'view-file', path: file.target.displayPath, window, end, limits, ...(fromEnd === undefined ? {} : { fromEnd }) }
}

/** The lines before the range are skipped as bytes, never decoded (as `read` does). */
async function windowOf(editor: Editor, { target, info, exec }: Viewed, start: number, end: number | undefined, limits: WindowLimits): Promise<TextWindow | Refused> {
  try {
    let lines = indexes.get(editor)
    if (lines === undefined) indexes.set(editor, lines = new LineIndex())
    const source = await skipLinesIndexed(lines, { fs: editor.ctx.fs, target, version: info.version, signal: exec.signal }, start)
    return await rangeWindow(source.chunks, start, end, limits, source.firstLine)
  } catch (error) {
    // Deleted between the stat and the open: still a miss of this view, so still recorded absent.
    if (FsError.is(error, 'FS_NOT_FOUND')) return editor.absent(target, exec)
    if (!FsError.is(error, 'FS_NOT_TEXT')) throw error
    // Bytes that are not UTF-8 may be text in a legacy encoding the call allows: then decoded whole.
    return decodedWhole(editor, { target, info, exec }, error, start, end, limits)
  }
}

/** The window reached the end of the file before the range did: the range names lines that do not exist. */
function pastTheEnd(range: number[], start: number, end: number | undefined, totalLines: number | undefined): Refused | undefined {
  if (totalLines === undefined) return undefined
  if (start > totalLines && !(start === 1 && totalLines === 0 && end === undefined)) return invalid({ kind: 'view-range-start', range, total: totalLines })
  if (end !== undefined && end > totalLines) return invalid({ kind: 'view-range-end-past-file', range, total: totalLines })
  return undefined
}

/** The checks that need no I/O, in the order models know them. */
function rangeShape(range: number[]): Refused | undefined {
  if (range.length !== 2) return invalid({ kind: 'view-range-shape' })
  const [start, end] = range as [number, number]
  // Negative positions count from the end (-1 is the last line); their order is checked once the line count is known.
  if (start >= 1 && end >= 1 && end < start) return invalid({ kind: 'view-range-end-before-start', range })
  return undefined
}

/** What a directory `view` asks of a listing: visible names only, never more than it can still show. */
const shown = (limit: number) => ({ limit, hidden: false })

/**
 * Two levels, hidden entries skipped (and not descended into), children right after their parent.
 * Every listing asks only for as many entries as there is room left for, so a provider inspects
 * (stats) only what is shown; the entries left out are counted, not inspected. Subdirectories after
 * the cut are not entered at all, so the count is a lower bound.
 */
async function listTwoLevels(editor: Editor, dir: FsTarget, exec: ToolExecution): Promise<EditorReply> {
  const limit = editor.config.listLimit
  const fs = editor.ctx.fs
  const paths: string[] = []
  const top = cutListing(await fs.listDir(dir, exec.signal, shown(limit)), shown(limit))
  let omitted = top.omitted
  for (const [index, entry] of top.entries.entries()) {
    if (paths.length >= limit) {
      omitted += top.entries.length - index
      break
    }
    paths.push(entry.target.displayPath)
    if (entry.type !== 'directory') continue
    const room = limit - paths.length
    let children
    try {
      children = cutListing(await fs.listDir(entry.target, exec.signal, shown(room)), shown(room))
    } catch (error) {
      // An unreadable subdirectory is still listed itself; only an abort ends the whole view.
      if (FsError.is(error, 'FS_ABORTED')) throw error
      continue
    }
    paths.push(...children.entries.map((child) => child.target.displayPath))
    omitted += children.omitted
  }
  return { kind: 'view-directory', path: dir.displayPath, paths, ...(omitted > 0 ? { cut: { limit, omitted } } : {}) }
}

/** A file whose bytes are not UTF-8, decoded whole under the call's encoding choice; refused as not text when it cannot be. */
async function decodedWhole(editor: Editor, { target, exec }: Viewed, notUtf8: FsError, start: number, end: number | undefined, limits: WindowLimits): Promise<TextWindow | Refused> {
  try {
    return await rangeWindow([await textUnderDecoding(editor.ctx.fs, target, exec, notUtf8)], start, end, limits, 1)
  } catch (error) {
    if (FsError.is(error, 'FS_NOT_TEXT') && error.candidates === undefined) return refusedAs(error, { kind: 'not-text', message: error.message })
    throw error
  }
}
