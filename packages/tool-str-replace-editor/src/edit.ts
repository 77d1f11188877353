import { type FsEditOutcome, FsError, type FsOccurrences, type FsTarget, type FsVersion, type FsWriteOutcome } from '@deepseek-ai/dsh-fs'
import { normalizeLineEndings, seenEverything } from '@deepseek-ai/dsh-fs/kit'
// Lines are counted as `read` counts them (`cat -n`: a final line feed starts no new line).
import {
  argumentRefused, countLines, decodingOf, editedObservation, editorRefused, type LandedChange, type LineSpan, printedProblem, readOptions, seenOfWindow, snippetLines,
} from '@deepseek-ai/dsh-tool-text'
import { isRefusal, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { insertLines, lineAt, occurrenceLines } from './lines'
import type { EditorReply } from './render'
import { notAFile, refuse } from './refusals'
import { type Editor, missing, invalid, providerRefusal, type Refused, refusedAs } from './runtime'
import type { Input } from './schema'

type Changing = 'str_replace' | 'insert'
type Where = { oldStr: string } | { line: number }

/**
 * `create` always publishes with `createIfAbsent`, with or without the policy and whatever the
 * policy would answer: it makes new files only, like the editor models were trained on, so an
 * existing file (seen or not) is refused with `FS_NOT_OBSERVED` and left intact. Replacing a whole
 * file is the `write` tool's job. The write-intent waterfall is therefore not consulted.
 */
export async function create(editor: Editor, input: Input, exec: ToolExecution): Promise<EditorReply | Refused> {
  if (input.file_text === undefined) return missing('file_text', 'create')
  const printed = refusePrinted(input.file_text, '`file_text`', 'create')
  if (printed !== undefined) return printed
  const target = await editor.resolve(input.path, exec)
  let version: FsVersion
  try {
    ;({ version } = await editor.ctx.fs.writeText(target, input.file_text, { expected: { kind: 'createIfAbsent' }, signal: exec.signal, decoding: decodingOf(exec) }))
  } catch (error) {
    return createRefused(editor, error, target, exec)
  }
  // The session wrote every line of the new file: it has seen all of it.
  const lines = countLines(input.file_text)
  editor.observe(target, { kind: 'present', version, seen: seenEverything(lines) }, exec)
  return { kind: 'report', report: { kind: 'written', path: target.displayPath, operation: 'create', lines } }
}

/** Something is there: a file that `view` cannot show is named as such, not sent to `view`. */
async function createRefused(editor: Editor, error: unknown, target: FsTarget, exec: ToolExecution): Promise<Refused> {
  if (FsError.is(error, 'FS_NOT_OBSERVED')) {
    const named = await notAFile(editor, error, target, exec)
    if (named !== undefined) return named
    // An empty file has no text for `str_replace` to quote: `insert` at its top is the way to fill it.
    const empty = (await editor.ctx.fs.stat(target, exec.signal).catch(() => undefined))?.size === 0
    return refusedAs(error, { kind: 'already-exists', path: target.displayPath, empty })
  }
  if (FsError.is(error, 'FS_NOT_REGULAR_FILE') || FsError.is(error, 'FS_OUTSIDE_ROOT')) return await notAFile(editor, error, target, exec) ?? providerRefusal(error)
  return providerRefusal(error)
}

/**
 * `str_replace`: the edit-intent waterfall gives the guard (the policy's version, or `undefined`
 * without a policy), then one guarded `editText`, which matches literally and keeps BOM and line
 * endings. Zero `stat`s. Without a guard, `FS_STALE_VERSION` can only mean the file is missing:
 * that is this command's metadata miss, recorded as `absent`. With a guard, a vanished file stays
 * stale: the model's copy is what is wrong, and re-viewing records the absence.
 */
export async function strReplace(editor: Editor, input: Input, exec: ToolExecution): Promise<EditorReply | Refused> {
  const oldStr = input.old_str
  if (oldStr === undefined) return missing('old_str', 'str_replace')
  const newStr = input.new_str ?? ''
  const target = await editor.resolve(input.path, exec)
  const path = target.displayPath
  if (oldStr.length === 0) return editorRefused('FS_EDIT_NOT_FOUND', { kind: 'old-str-empty', path })
  if (oldStr === newStr) return argumentRefused({ kind: 'identical', family: 'editor' })
  const printed = refusePrinted(newStr, '`new_str`', 'str_replace', oldStr)
  if (printed !== undefined) return printed
  const guard = await intent(editor, target, exec, 'str_replace', { oldStr })
  if (isRefusal(guard)) return guard
  let outcome: FsEditOutcome
  try {
    outcome = await editor.ctx.fs.editText(target, { oldString: oldStr, newString: newStr, replaceAll: false }, { expected: guard.version, signal: exec.signal, decoding: decodingOf(exec) })
  } catch (error) {
    return replaceRefused(editor, error, guard.version === undefined, { command: 'str_replace', target, exec, where: { oldStr } })
  }
  if (outcome.before !== null) editor.histories.of(exec.agent?.session).push(target.targetKey, outcome.before, outcome.version)
  else editor.histories.of(exec.agent?.session).forget(target.targetKey)
  const { first, changed } = landing(outcome, oldStr, newStr)
  const shown = await landed(editor, outcome.after, first, changed)
  // The snippet of the reply is lines of the new version shown: they count as seen.
  editor.observe(target, editedObservation(guard.version, outcome, shown.snippet), exec)
  return { kind: 'report', report: { kind: 'edited', path, replacements: outcome.replacements, first: shown } }
}

interface Refusing {
  command: Changing
  target: FsTarget
  exec: ToolExecution
  where: Where
}

/** A failed `editText`: a miss without a guard, each line of an ambiguous old_str, or the shared refusals. */
async function replaceRefused(editor: Editor, error: unknown, unguarded: boolean, call: Refusing & { where: { oldStr: string } }): Promise<Refused> {
  const { target, exec } = call
  if (FsError.is(error, 'FS_STALE_VERSION') && unguarded) return editor.absent(target, exec)
  if (FsError.is(error, 'FS_AMBIGUOUS_EDIT')) {
    const occurrences = error.occurrences ?? await ambiguity(editor, target, call.where.oldStr, exec)
    const failure = { kind: 'ambiguous' as const, path: target.displayPath, needle: call.where.oldStr, occurrences }
    return refusedAs(error, { kind: 'match', failure, limits: editor.window })
  }
  return refuse(editor, error, call)
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
export async function insert(editor: Editor, input: Input, exec: ToolExecution): Promise<EditorReply | Refused> {
  if (input.insert_line === undefined) return missing('insert_line', 'insert')
  if (input.new_str === undefined) return missing('new_str', 'insert')
  const printed = refusePrinted(input.new_str, '`new_str`', 'insert')
  if (printed !== undefined) return printed
  const call: Refusing = { command: 'insert', target: await editor.resolve(input.path, exec), exec, where: { line: input.insert_line } }
  const base = await insertionBase(editor, call)
  if (isRefusal(base)) return base
  const { text, version } = base
  const total = countLines(text)
  if (input.insert_line < 0 || input.insert_line > total) return invalid({ kind: 'insert-line-out-of-range', line: input.insert_line, total })
  const insertion = insertLines(text, input.insert_line, input.new_str)
  let outcome: FsWriteOutcome
  try {
    outcome = await editor.ctx.fs.writeText(call.target, insertion.text, { expected: { kind: 'replaceIfVersion', version }, signal: exec.signal, decoding: decodingOf(exec) })
  } catch (error) {
    return refuse(editor, error, call)
  }
  // Only lines were added, after line insert_line: the rest moved down by them, and they are the session's own.
  // The snippet of the reply is seen too.
  const change = { line: insertion.firstLine, removedLines: 0, addedLines: insertion.lineCount }
  const shown = await landed(editor, outcome.after, insertion.firstLine, insertion.lineCount)
  const seen = seenOfWindow(shown.snippet, countLines(outcome.after))
  editor.observe(call.target, { kind: 'present', version: outcome.version, seen, from: { version, changes: [change] } }, exec)
  editor.histories.of(exec.agent?.session).push(call.target.targetKey, text, outcome.version)
  return { kind: 'report', report: { kind: 'inserted', path: call.target.displayPath, first: shown } }
}

/** The text `insert` builds on, and the version it must still be when published. */
async function insertionBase(editor: Editor, call: Refusing): Promise<{ text: string; version: FsVersion } | Refused> {
  const { target, exec } = call
  const guard = await intent(editor, target, exec, 'insert', call.where)
  if (isRefusal(guard)) return guard
  let version = guard.version?.version
  if (version === undefined) {
    const info = await editor.ctx.fs.stat(target, exec.signal)
    if (info === undefined) return editor.absent(target, exec)
    version = info.version
  }
  try {
    return { text: await editor.ctx.fs.readText(target, readOptions(exec)), version }
  } catch (error) {
    // Gone since the version the guard names: the guard is stale, as `str_replace` would report.
    const stale = FsError.is(error, 'FS_NOT_FOUND') ? new FsError('FS_STALE_VERSION', error.message, { cause: error, path: target.displayPath }) : error
    return refuse(editor, stale, call)
  }
}

/** What `view` printed (line numbers, notes) is never written: refused before anything is asked of the file. */
function refusePrinted(text: string, argument: string, command: 'create' | Changing, oldStr?: string): Refused | undefined {
  const quoted = oldStr === undefined ? undefined : { argument: '`old_str`', text: oldStr }
  const problem = printedProblem(text, { family: 'editor', argument, command }, quoted)
  return problem === undefined ? undefined : argumentRefused(problem)
}

/** The edit-intent decision; the default (no policy) is no guard. Policy refusals get their remedy. */
async function intent(editor: Editor, target: FsTarget, exec: ToolExecution, command: Changing, where: Where): Promise<{ version: { version: FsVersion } | undefined } | Refused> {
  try {
    return { version: await editor.ctx.waterfall('fs/edit-intent', target, exec, () => undefined) }
  } catch (error) {
    return refuse(editor, error, { command, target, exec, where })
  }
}

/**
 * The lines of an ambiguous match from a provider that does not report them on the error: read
 * again only on this failure path; omitted if that read fails.
 */
async function ambiguity(editor: Editor, target: FsTarget, oldStr: string, exec: ToolExecution): Promise<FsOccurrences | undefined> {
  try {
    const lines = occurrenceLines(await editor.ctx.fs.readText(target, readOptions(exec)), oldStr)
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
