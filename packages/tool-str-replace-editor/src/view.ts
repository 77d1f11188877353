import { FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { cutListing } from '@deepseek-ai/dsh-fs/kit'
import { countTargetLines, LineIndex, lineFromEnd, seenOfWindow, skipLinesIndexed } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import { render } from './render'
import { type Editor, invalid, withText } from './runtime'
import type { Input } from './schema'
import { rangeWindow, type TextWindow, textUnderDecoding } from '@deepseek-ai/dsh-tool-text'

/** Line starts found by earlier views, per editor (one per plugin instance, hence per provider). */
const indexes = new WeakMap<Editor, LineIndex>()

/**
 * `view`: one `stat` routes the call. Nothing there → `absent` is recorded and the call fails
 * `FS_NOT_FOUND`; a directory is listed; a file is shown as a numbered window and recorded present
 * at the stat's version (a writer racing the read can at worst make the next edit spuriously stale).
 * Bytes that are not UTF-8 may be text in a legacy encoding the call allows: then decoded whole.
 */
export async function view(editor: Editor, input: Input, exec: ToolExecution): Promise<string> {
  const range = input.view_range
  if (range !== undefined) checkRangeShape(range)
  const target = await editor.resolve(input.path, exec)
  const info = await editor.ctx.fs.stat(target, exec.signal)
  if (info === undefined) throw editor.absent(target, exec)
  if (info.type === 'directory') {
    if (range !== undefined) throw invalid(render.viewRangeOnDirectory())
    return listTwoLevels(editor, target, exec)
  }
  if (info.type !== 'file') {
    throw new FsError('FS_NOT_REGULAR_FILE', render.notRegularFile(target.displayPath, info), { path: target.displayPath })
  }

  // A position below 1 (other than the end's -1) needs the line count: from the end, or named with it.
  const total = range !== undefined && (range[0]! < 1 || range[1]! < -1) ? await countTargetLines(editor.ctx.fs, target, exec.signal) : undefined
  if (total !== undefined && range![0] === 0) throw invalid(render.viewRangeStart(range!, total))
  const start = total === undefined ? range?.[0] ?? 1 : lineFromEnd(range![0]!, total)
  const end = range === undefined || range[1] === -1 ? undefined : total === undefined ? range[1] : lineFromEnd(range[1]!, total)
  if (end !== undefined && end < start) throw invalid(render.viewRangeEndBeforeStart(range!))
  // One line asked for by its number: shown whole up to the byte budget, so a line cut in a wider
  // view can be seen to its end (the canonical arguments have no column).
  const limits = end === start ? { ...editor.window, maxLineLength: Math.max(editor.window.maxLineLength, editor.window.maxBytes) } : editor.window
  let window: TextWindow
  try {
    // The lines before the range are skipped as bytes, never decoded (as `read` does).
    let lines = indexes.get(editor)
    if (lines === undefined) indexes.set(editor, lines = new LineIndex())
    const source = await skipLinesIndexed(lines, { fs: editor.ctx.fs, target, version: info.version, signal: exec.signal }, start)
    window = await rangeWindow(source.chunks, start, end, limits, source.firstLine)
  } catch (error) {
    // Deleted between the stat and the open: still a miss of this view, so still recorded absent.
    if (FsError.is(error, 'FS_NOT_FOUND')) throw editor.absent(target, exec)
    if (!FsError.is(error, 'FS_NOT_TEXT')) throw error
    window = await rangeWindow([await textUnderDecoding(editor.ctx.fs, target, exec.signal, withText(error, render.notText(error.message)))], start, end, limits, 1)
  }
  // The window reached the end of the file before the range did: the range names lines that do not exist.
  if (range !== undefined && window.totalLines !== undefined) {
    if (start > window.totalLines && !(start === 1 && window.totalLines === 0 && end === undefined)) {
      throw invalid(render.viewRangeStart(range, window.totalLines))
    }
    if (end !== undefined && end > window.totalLines) throw invalid(render.viewRangeEndPastFile(range, window.totalLines))
  }
  editor.observe(target, { kind: 'present', version: info.version, seen: seenOfWindow(window.lines, window.totalLines ?? total) }, exec)
  const fromEnd = total === undefined ? undefined : { range: range!, total }
  return render.viewFile(target.displayPath, window, end, limits, fromEnd)
}

/** The checks that need no I/O, in the order models know them. */
function checkRangeShape(range: number[]): void {
  if (range.length !== 2) throw invalid(render.viewRangeShape())
  const [start, end] = range as [number, number]
  // Negative positions count from the end (-1 is the last line); their order is checked once the line count is known.
  if (start >= 1 && end >= 1 && end < start) throw invalid(render.viewRangeEndBeforeStart(range))
}

/** What a directory `view` asks of a listing: visible names only, never more than it can still show. */
const shown = (limit: number) => ({ limit, hidden: false })

/**
 * Two levels, hidden entries skipped (and not descended into), children right after their parent.
 * Every listing asks only for as many entries as there is room left for, so a provider inspects
 * (stats) only what is shown; the entries left out are counted, not inspected. Subdirectories after
 * the cut are not entered at all, so the count is a lower bound.
 */
async function listTwoLevels(editor: Editor, dir: FsTarget, exec: ToolExecution): Promise<string> {
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
  return render.viewDirectory(dir.displayPath, paths, omitted > 0 ? { limit, omitted } : undefined)
}
