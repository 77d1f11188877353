import { type FsEditOutcome, FsError, type FsOccurrences, type FsTarget, type FsVersion, type FsWriteOutcome } from '@deepseek-ai/dsh-fs'
import { normalizeLineEndings, seenEverything } from '@deepseek-ai/dsh-fs/kit'
// Lines are counted as `read` counts them (`cat -n`: a final line feed starts no new line).
import { countLines, editedObservation, type LandedChange, printedRefusal, seenOfWindow, type LineSpan, type MutationReport, renderMatchFailure, renderReport, snippetLines } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import { insertLines, lineAt, occurrenceLines } from './lines'
import { render } from './render'
import { notAFile, refuse } from './refusals'
import { type Editor, invalid, missing, withText } from './runtime'
import type { Input } from './schema'

/**
 * `create` always publishes with `createIfAbsent`, with or without the policy and whatever the
 * policy would answer: it makes new files only, like the editor models were trained on, so an
 * existing file (seen or not) is refused with `FS_NOT_OBSERVED` and left intact. Replacing a whole
 * file is the `write` tool's job. The write-intent waterfall is therefore not consulted.
 */
export async function create(editor: Editor, input: Input, exec: ToolExecution): Promise<string> {
  if (input.file_text === undefined) throw missing('file_text', 'create')
  refusePrinted(input.file_text, '`file_text`', 'create')
  const target = await editor.resolve(input.path, exec)
  let version: FsVersion
  try {
    ;({ version } = await editor.ctx.fs.writeText(target, input.file_text, { expected: { kind: 'createIfAbsent' }, signal: exec.signal }))
  } catch (error) {
    if (FsError.is(error, 'FS_NOT_OBSERVED')) {
      // Something is there: a file that `view` cannot show is named as such, not sent to `view`.
      const named = await notAFile(editor, error, target, exec)
      if (named !== error) throw named
      // An empty file has no text for `str_replace` to quote: `insert` at its top is the way to fill it.
      const empty = (await editor.ctx.fs.stat(target, exec.signal).catch(() => undefined))?.size === 0
      throw withText(error, empty ? render.alreadyExistsEmpty(target.displayPath) : render.alreadyExists(target.displayPath))
    }
    if (FsError.is(error, 'FS_NOT_REGULAR_FILE') || FsError.is(error, 'FS_OUTSIDE_ROOT')) throw await notAFile(editor, error, target, exec)
    throw error
  }
  // The session wrote every line of the new file: it has seen all of it.
  const lines = countLines(input.file_text)
  editor.observe(target, { kind: 'present', version, seen: seenEverything(lines) }, exec)
  return renderReport({ kind: 'written', path: target.displayPath, operation: 'create', lines }, 'editor', editor.window)
}

/**
 * `str_replace`: the edit-intent waterfall gives the guard (the policy's version, or `undefined`
 * without a policy), then one guarded `editText`, which matches literally and keeps BOM and line
 * endings. Zero `stat`s. Without a guard, `FS_STALE_VERSION` can only mean the file is missing:
 * that is this command's metadata miss, recorded as `absent`. With a guard, a vanished file stays
 * stale: the model's copy is what is wrong, and re-viewing records the absence.
 */
export async function strReplace(editor: Editor, input: Input, exec: ToolExecution): Promise<string> {
  return renderReport(await replaced(editor, input, exec), 'editor', editor.window)
}

/** The work of `str_replace`, as data: what was replaced and where it landed. */
async function replaced(editor: Editor, input: Input, exec: ToolExecution): Promise<MutationReport> {
  const oldStr = input.old_str
  if (oldStr === undefined) throw missing('old_str', 'str_replace')
  const newStr = input.new_str ?? ''
  const target = await editor.resolve(input.path, exec)
  const path = target.displayPath
  if (oldStr.length === 0) throw new FsError('FS_EDIT_NOT_FOUND', render.oldStrEmpty(path), { path })
  if (oldStr === newStr) throw invalid(render.identical())
  refusePrinted(newStr, '`new_str`', 'str_replace', oldStr)
  const guard = await intent(editor, target, exec, 'str_replace', { oldStr })
  let outcome: FsEditOutcome
  try {
    outcome = await editor.ctx.fs.editText(target, { oldString: oldStr, newString: newStr, replaceAll: false }, { expected: guard, signal: exec.signal })
  } catch (error) {
    if (FsError.is(error, 'FS_STALE_VERSION') && guard === undefined) throw editor.absent(target, exec)
    if (FsError.is(error, 'FS_AMBIGUOUS_EDIT')) {
      const occurrences = error.occurrences ?? await ambiguity(editor, target, oldStr, exec)
      throw withText(error, renderMatchFailure({ kind: 'ambiguous', path, needle: oldStr, occurrences }, 'editor', editor.window))
    }
    throw await refuse(editor, error, 'str_replace', target, exec, { oldStr })
  }
  if (outcome.before !== null) editor.histories.of(exec.agent?.session).push(target.targetKey, outcome.before, outcome.version)
  else editor.histories.of(exec.agent?.session).forget(target.targetKey)

  const { first, changed } = landing(outcome, oldStr, newStr)
  const shown = await landed(editor, outcome.after, first, changed)
  // The snippet of the reply is lines of the new version shown: they count as seen.
  editor.observe(target, editedObservation(guard, outcome, shown.snippet), exec)
  return { kind: 'edited', path, replacements: outcome.replacements, first: shown }
}

/**
 * Where a replacement landed, as the first line and the number of lines it spans: the provider's
 * line data when it reports it (at any file size), else the match in the old text, else the first
 * place the new text appears (a provider that returns neither old text nor line data).
 */
function landing(outcome: FsEditOutcome, oldStr: string, newStr: string): { first: number; changed: number } {
  if (outcome.changes !== undefined) {
    const change = outcome.changes[0]
    // No region: the edit changed no line (line endings only); show where the new text is.
    if (change !== undefined) return { first: change.line, changed: change.addedLines }
  }
  const at = outcome.before === null
    ? normalizeLineEndings(outcome.after).indexOf(normalizeLineEndings(newStr))
    : normalizeLineEndings(outcome.before).indexOf(normalizeLineEndings(oldStr))
  const first = lineAt(normalizeLineEndings(outcome.before ?? outcome.after), Math.max(at, 0))
  return { first, changed: normalizeLineEndings(newStr).split('\n').length }
}

/**
 * `insert`: the guard comes from the edit-intent waterfall; without a policy it is the version of
 * one `stat` taken before the read (a miss there records `absent`). The new text is built from one
 * read and published with `replaceIfVersion`, so a file changed after that version is never
 * overwritten. Existing bytes are kept; the inserted lines take the file's line ending and the
 * provider keeps the BOM.
 */
export async function insert(editor: Editor, input: Input, exec: ToolExecution): Promise<string> {
  return renderReport(await inserted(editor, input, exec), 'editor', editor.window)
}

async function inserted(editor: Editor, input: Input, exec: ToolExecution): Promise<MutationReport> {
  if (input.insert_line === undefined) throw missing('insert_line', 'insert')
  if (input.new_str === undefined) throw missing('new_str', 'insert')
  refusePrinted(input.new_str, '`new_str`', 'insert')
  const target = await editor.resolve(input.path, exec)
  const where = { line: input.insert_line }
  let version = (await intent(editor, target, exec, 'insert', where))?.version
  if (version === undefined) {
    const info = await editor.ctx.fs.stat(target, exec.signal)
    if (info === undefined) throw editor.absent(target, exec)
    version = info.version
  }
  let text: string
  try {
    text = await editor.ctx.fs.readText(target, exec.signal)
  } catch (error) {
    // Gone since the version the guard names: the guard is stale, as `str_replace` would report.
    if (FsError.is(error, 'FS_NOT_FOUND')) {
      const stale = new FsError('FS_STALE_VERSION', render.stale('insert', target.displayPath), { cause: error, path: target.displayPath })
      throw await refuse(editor, stale, 'insert', target, exec, where)
    }
    throw await refuse(editor, error, 'insert', target, exec, where)
  }
  const total = countLines(text)
  if (input.insert_line < 0 || input.insert_line > total) throw invalid(render.insertLineOutOfRange(input.insert_line, total))
  const insertion = insertLines(text, input.insert_line, input.new_str)
  let outcome: FsWriteOutcome
  try {
    outcome = await editor.ctx.fs.writeText(target, insertion.text, { expected: { kind: 'replaceIfVersion', version }, signal: exec.signal })
  } catch (error) {
    throw await refuse(editor, error, 'insert', target, exec, where)
  }
  // Only lines were added, after line insert_line: the rest moved down by them, and they are the session's own.
  // The snippet of the reply is seen too.
  const change = { line: insertion.firstLine, removedLines: 0, addedLines: insertion.lineCount }
  const shown = await landed(editor, outcome.after, insertion.firstLine, insertion.lineCount)
  const seen = seenOfWindow(shown.snippet, countLines(outcome.after))
  editor.observe(target, { kind: 'present', version: outcome.version, seen, from: { version, changes: [change] } }, exec)
  editor.histories.of(exec.agent?.session).push(target.targetKey, text, outcome.version)
  return { kind: 'inserted', path: target.displayPath, first: shown }
}

/** What `view` printed (line numbers, notes) is never written: refused before anything is asked of the file. */
function refusePrinted(text: string, argument: string, command: 'create' | 'str_replace' | 'insert', oldStr?: string): void {
  const quoted = oldStr === undefined ? undefined : { argument: '`old_str`', text: oldStr }
  const printed = printedRefusal(text, { family: 'editor', argument, command }, quoted)
  if (printed !== undefined) throw invalid(printed)
}

/** The edit-intent decision; the default (no policy) is no guard. Policy refusals get their remedy. */
async function intent(editor: Editor, target: FsTarget, exec: ToolExecution, command: 'str_replace' | 'insert', where: { oldStr: string } | { line: number }) {
  try {
    return await editor.ctx.waterfall('fs/edit-intent', target, exec, () => undefined)
  } catch (error) {
    throw await refuse(editor, error, command, target, exec, where)
  }
}

/**
 * The lines of an ambiguous match from a provider that does not report them on the error: read
 * again only on this failure path; omitted if that read fails.
 */
async function ambiguity(editor: Editor, target: FsTarget, oldStr: string, exec: ToolExecution): Promise<FsOccurrences | undefined> {
  try {
    const lines = occurrenceLines(await editor.ctx.fs.readText(target, exec.signal), oldStr)
    return lines.length > 1 ? { count: lines.length, lines: [...new Set(lines)], truncated: false } : undefined
  } catch {
    return undefined
  }
}

/** `changed` lines from `first` of the new text, with the snippet both families show around a change. */
async function landed(editor: Editor, after: string, first: number, changed: number): Promise<LandedChange> {
  const span: LineSpan = { start: first, end: first + changed - 1 }
  return { span, snippet: await snippetLines(after, span, { maxLineLength: editor.window.maxLineLength }) }
}
