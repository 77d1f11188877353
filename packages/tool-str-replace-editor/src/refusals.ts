import { FsError, fsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import {
  closestRegion, countLines, EDITOR_WORDS, inspectTarget, isSymbolicLink, nothingDone, notAFileText, rangeWindow, readCurrentVersion, renderMatchFailure,
  renderStale, seenOfWindow, tooLargeText,
  TOUCHED_MAX_LINES, touchedLines,
} from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import { render } from './render'
import { type Editor, explain, withText } from './runtime'

/**
 * What `str_replace` and `insert` say when refused, looking further only on this failure path (the
 * success paths keep their stat budget). Mirrors dsh-tool-fs's refusals, in the editor's words:
 * - a refusal that would send the model to view first is checked against what the target is;
 * - a stale refusal shows the current version and records it, when `staleRefusalObserves` is on;
 * - a failed match shows the closest region.
 * `where` is old_str for `str_replace`, the line after which `insert` adds text. An undecided
 * encoding (`FS_NOT_TEXT` with `candidates`) is said as such (`withEncodings`), never as "binary".
 */
export async function refuse(editor: Editor, raised: unknown, command: 'str_replace' | 'insert', target: FsTarget, exec: ToolExecution,
  where: { oldStr: string } | { line: number }): Promise<unknown> {
  if (!FsError.is(raised)) return raised
  const path = target.displayPath
  let error: FsError = raised
  // The session's memory says absent, but a file is there now: a stale basis, never "does not exist".
  if (error.code === 'FS_NOT_FOUND' && (await inspectTarget(editor.ctx.fs, target, exec.signal))?.kind === 'text') {
    error = fsError('FS_STALE_VERSION', { path, reason: 'has been created since you found it absent' })
  }
  if (error.code === 'FS_NOT_OBSERVED' || error.code === 'FS_NOT_REGULAR_FILE' || (error.code === 'FS_NOT_TEXT' && error.candidates === undefined) || error.code === 'FS_OUTSIDE_ROOT') {
    const nature = await inspectTarget(editor.ctx.fs, target, exec.signal)
    if (nature?.kind === 'text' && error.code === 'FS_NOT_OBSERVED' && (nature.size ?? 0) > editor.config.maxTextBytes) {
      return new FsError('FS_TOO_LARGE', `${nothingDone(command)}: ${tooLargeText(path, nature.size!, editor.config.maxTextBytes)}.`, { cause: error, path })
    }
    if (nature?.kind === 'text' && error.code === 'FS_NOT_OBSERVED' && await isSymbolicLink(editor.ctx.fs, target, exec.signal)) {
      return withText(error, `${nothingDone(command)}: ${path} is a symbolic link now, so the change would land in the file it points to, `
        + 'which you have not viewed (the `view` command shows it through the link). View the file, then retry.')
    }
    if (nature !== undefined && nature.kind !== 'text') {
      if (nature.kind === 'absent') return error.code === 'FS_NOT_OBSERVED' ? withText(error, render.notFound(path)) : explain(error, command, target)
      const code = nature.kind === 'binary' || nature.kind === 'not-utf8' ? 'FS_NOT_TEXT' : 'FS_NOT_REGULAR_FILE'
      return new FsError(code, `${nothingDone(command)}: ${notAFileText(path, nature, 'change', EDITOR_WORDS)}.`, { cause: error, path })
    }
  }
  if (error.code === 'FS_STALE_VERSION' && editor.config.staleRefusalObserves) {
    const current = await readCurrentVersion(editor.ctx.fs, target, exec.signal)
    if (current.kind === 'absent') {
      editor.observe(target, { kind: 'absent' }, exec)
      return withText(error, renderStale({ kind: 'stale-absent', path, call: command }, editor.window))
    }
    if (current.kind === 'present') {
      const { start, end, shown } = staleSpan(current.text, where)
      const window = await rangeWindow([current.text], start, end, editor.window)
      const totalLines = countLines(current.text)
      editor.observe(target, { kind: 'present', version: current.version, seen: seenOfWindow(window.lines, totalLines) }, exec)
      return withText(error, renderStale({ kind: 'stale-shown', path, call: command, reason: error.message, lines: window.lines,
        totalLines, where: shown }, editor.window))
    }
  }
  if (error.code === 'FS_EDIT_NOT_FOUND' && 'oldStr' in where) {
    const closest = await closestRegion(editor.ctx.fs, target, where.oldStr, exec.signal)
    return withText(error, renderMatchFailure({ kind: 'no-match', path, needle: where.oldStr, region: closest?.region, ...(closest?.empty === true ? { empty: true } : {}) }, 'editor', editor.window))
  }
  return explain(error, command, target)
}

/** The lines of the current text the refused command touches: old_str's place (or nearest), the insertion point, else the top. */
function staleSpan(text: string, where: { oldStr: string } | { line: number }) {
  const touched = touchedLines(text, 'line' in where ? { line: where.line } : { needle: where.oldStr })
  const span = touched.span ?? { start: 1, end: TOUCHED_MAX_LINES }
  return { ...span, shown: touched.where }
}


/** `create` on something in the way that is not a file: named, with the path that works instead. */
export async function notAFile(editor: Editor, error: FsError, target: FsTarget, exec: ToolExecution): Promise<FsError> {
  const nature = await inspectTarget(editor.ctx.fs, target, exec.signal)
  if (nature === undefined || nature.kind === 'absent' || nature.kind === 'text') return error
  return new FsError('FS_NOT_REGULAR_FILE', `${notAFileText(target.displayPath, nature, 'create', EDITOR_WORDS)}.`, { cause: error, path: target.displayPath })
}
