import { FsError, fsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import {
  closestRegion, countLines, editorRefused, inspectTarget, isSymbolicLink, rangeWindow, reachOf, readCurrentVersion, seenOfWindow, type TargetNature, TOUCHED_MAX_LINES, touchedLines,
} from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import { type Editor, explain, providerRefusal, type Refused, refusedAs } from './runtime'

type Changing = 'str_replace' | 'insert'
/** old_str for `str_replace`, the line after which `insert` adds text. */
type Where = { oldStr: string } | { line: number }

/** A refused change: the command, its target and where it was to land. */
interface Refusing {
  command: Changing
  target: FsTarget
  exec: ToolExecution
  where: Where
}

/**
 * What `str_replace` and `insert` say when refused, looking further only on this failure path (the
 * success paths keep their stat budget). Mirrors dsh-tool-fs's refusals, in the editor's words:
 * - a refusal that would send the model to view first is checked against what the target is;
 * - a stale refusal shows the current version and records it, when `staleRefusalObserves` is on;
 * - a failed match shows the closest region.
 * An undecided encoding (`FS_NOT_TEXT` with `candidates`) is said as such, never as "binary".
 */
export async function refuse(editor: Editor, raised: unknown, call: Refusing): Promise<Refused> {
  if (!FsError.is(raised)) return providerRefusal(raised)
  const { target, exec } = call
  let error: FsError = raised
  // The session's memory says absent, but a file is there now: a stale basis, never "does not exist".
  if (error.code === 'FS_NOT_FOUND' && (await inspectTarget(editor.ctx.fs, target, exec.signal, reachOf(editor.config)))?.kind === 'text') {
    error = fsError('FS_STALE_VERSION', { path: target.displayPath, reason: 'has been created since you found it absent' })
  }
  if (error.code === 'FS_NOT_OBSERVED' || error.code === 'FS_NOT_REGULAR_FILE' || (error.code === 'FS_NOT_TEXT' && error.candidates === undefined) || error.code === 'FS_OUTSIDE_ROOT') {
    const nature = await inspectTarget(editor.ctx.fs, target, exec.signal, reachOf(editor.config))
    const named = await byNature(editor, error, call, nature)
    if (named !== undefined) return named
  }
  if (error.code === 'FS_STALE_VERSION' && editor.config.staleRefusalObserves) {
    const shown = await staleShown(editor, error, call)
    if (shown !== undefined) return shown
  }
  if (error.code === 'FS_EDIT_NOT_FOUND' && 'oldStr' in call.where) return noMatch(editor, error, call, call.where.oldStr)
  return explain(error, call.command, target)
}

/** What the target is, when that decides the refusal before any view-first rule. */
async function byNature(editor: Editor, error: FsError, call: Refusing, nature: TargetNature | undefined): Promise<Refused | undefined> {
  const { command, target, exec } = call
  const path = target.displayPath
  const unviewed = nature?.kind === 'text' && error.code === 'FS_NOT_OBSERVED'
  const limit = editor.ctx.fs.maxTextBytes
  if (unviewed && (nature.size ?? 0) > limit) return editorRefused('FS_TOO_LARGE', { kind: 'too-large', command, path, size: nature.size!, limit })
  if (unviewed && await isSymbolicLink(editor.ctx.fs, target, exec.signal)) return refusedAs(error, { kind: 'linked', command, path })
  if (nature === undefined || nature.kind === 'text') return undefined
  if (nature.kind === 'absent') return error.code === 'FS_NOT_OBSERVED' ? refusedAs(error, { kind: 'not-found', path }) : explain(error, command, target)
  const code = nature.kind === 'binary' || nature.kind === 'not-utf8' ? 'FS_NOT_TEXT' : 'FS_NOT_REGULAR_FILE'
  return editorRefused(code, { kind: 'not-a-file', command, path, nature })
}

/** Stale: the current version shown and recorded as viewed (or the file recorded absent), so the retry can succeed. */
async function staleShown(editor: Editor, error: FsError, call: Refusing): Promise<Refused | undefined> {
  const { command, target, exec } = call
  const path = target.displayPath
  const current = await readCurrentVersion(editor.ctx.fs, target, exec)
  if (current.kind === 'absent') {
    editor.observe(target, { kind: 'absent' }, exec)
    return refusedAs(error, { kind: 'stale-current', stale: { kind: 'stale-absent', path, call: command }, limits: editor.window })
  }
  if (current.kind !== 'present') return undefined
  const { start, end, shown } = staleSpan(current.text, call.where)
  const window = await rangeWindow([current.text], start, end, editor.window)
  const totalLines = countLines(current.text)
  editor.observe(target, { kind: 'present', version: current.version, seen: seenOfWindow(window.lines, totalLines) }, exec)
  const stale = { kind: 'stale-shown' as const, path, call: command, reason: error.message, lines: window.lines, totalLines, where: shown }
  return refusedAs(error, { kind: 'stale-current', stale, limits: editor.window })
}

/** old_str matched nothing: the closest region of the file, if any resembles it. */
async function noMatch(editor: Editor, error: FsError, { target, exec }: Refusing, oldStr: string): Promise<Refused> {
  const closest = await closestRegion(editor.ctx.fs, target, oldStr, exec)
  const failure = { kind: 'no-match' as const, path: target.displayPath, needle: oldStr, region: closest?.region, ...(closest?.empty === true ? { empty: true } : {}) }
  return refusedAs(error, { kind: 'match', failure, limits: editor.window })
}

/** The lines of the current text the refused command touches: old_str's place (or nearest), the insertion point, else the top. */
function staleSpan(text: string, where: Where) {
  const touched = touchedLines(text, 'line' in where ? { line: where.line } : { needle: where.oldStr })
  const span = touched.span ?? { start: 1, end: TOUCHED_MAX_LINES }
  return { ...span, shown: touched.where }
}

/** `create` on something in the way that is not a file: named, with the path that works instead; undefined for a text file or nothing. */
export async function notAFile(editor: Editor, error: FsError, target: FsTarget, exec: ToolExecution): Promise<Refused | undefined> {
  const nature = await inspectTarget(editor.ctx.fs, target, exec.signal, reachOf(editor.config))
  if (nature === undefined || nature.kind === 'absent' || nature.kind === 'text') return undefined
  return editorRefused('FS_NOT_REGULAR_FILE', { kind: 'not-a-file', command: 'create', path: target.displayPath, nature })
}
