import type { FsEncodingCandidate, FsInfo } from '@deepseek-ai/dsh-fs'
import { UNENCODABLE_REMEDY, undecidedRemedy } from './encoding'
import { describeEntry } from '@deepseek-ai/dsh-fs/kit'
import { refuse, type ToolRefusal } from '@deepseek-ai/dsh-tools'
import { tooLargeText } from './nature'
import { EDITOR_WORDS, type NotAFile, notAFileText, notTextRemedy, readOnlyText } from './remedies'
import { type TextReach, UTF8_ONLY } from './reach'
import { nothingDone, type RenderLimits } from './render'
import { renderMatchFailure, renderStale } from './render-refusal'
import { linkedText } from './refusal-words'
import type { MatchFailure, StaleRefusal } from './report'

/*
 * Every refusal the model reads from str_replace_editor, in the wording models know from
 * Anthropic's text editor tool, plus the one next step that works.
 */

export type EditorCommand = 'view' | 'create' | 'str_replace' | 'insert' | 'undo_edit'
type Changing = 'str_replace' | 'insert'

/** A refused editor command, as data. */
export type EditorStop =
  | { kind: 'missing-parameter'; name: string; command: EditorCommand }
  | { kind: 'view-range-on-directory' }
  | { kind: 'view-range-shape' }
  /** `total` is unknown when the start is below 1: the file is not read just to count its lines. */
  | { kind: 'view-range-start'; range: readonly number[]; total: number | undefined }
  | { kind: 'view-range-end-past-file'; range: readonly number[]; total: number }
  | { kind: 'view-range-end-before-start'; range: readonly number[] }
  | { kind: 'insert-line-out-of-range'; line: number; total: number }
  | { kind: 'not-found'; path: string }
  | { kind: 'not-regular-file'; path: string; info: FsInfo }
  /** The provider's FS_NOT_TEXT account. */
  | { kind: 'not-text'; message: string }
  | { kind: 'already-exists'; path: string; empty: boolean }
  | { kind: 'old-str-empty'; path: string }
  | { kind: 'stale'; command: EditorCommand; path: string }
  | { kind: 'not-observed'; command: EditorCommand; path: string }
  | { kind: 'no-history'; path: string }
  /** The provider found the file read-only (`FS_PERMISSION_DENIED` with that fact). */
  | { kind: 'read-only'; path: string }
  | { kind: 'undo-stale'; path: string }
  | { kind: 'too-large'; command: Changing; path: string; size: number; limit: number }
  | { kind: 'linked'; command: Changing; path: string }
  /** `command` create: something in the way; otherwise the change's target is not a text file. */
  | { kind: 'not-a-file'; command: 'create' | Changing; path: string; nature: NotAFile }
  | { kind: 'stale-current'; stale: StaleRefusal; limits: RenderLimits }
  | { kind: 'match'; failure: MatchFailure; limits: RenderLimits }
  /**
   * The provider's own account, which already names the path and the reason; an encoding refusal
   * (`FS_NOT_ENCODABLE`, or `FS_NOT_TEXT` with the detector's `candidates`) gets its remedy.
   */
  | { kind: 'provider'; message: string; code?: string; candidates?: readonly FsEncodingCandidate[] }

export interface EditorRefusal {
  editor: EditorStop
}

export function editorRefused(code: string, editor: EditorStop): ToolRefusal<EditorRefusal> {
  return refuse(code, { editor })
}

/** The text of a refused editor command, for an editor that reads what `reach` says (UTF-8 text only by default). */
export function renderEditorRefusal({ editor: stop }: EditorRefusal, reach: TextReach = UTF8_ONLY): string {
  return argumentText(stop) ?? fileText(stop, reach)
}

/** Arguments the command cannot run with; undefined for a refusal about the file. */
function argumentText(stop: EditorStop): string | undefined {
  switch (stop.kind) {
    case 'missing-parameter': return `Parameter \`${stop.name}\` is required for command: ${stop.command}`
    case 'view-range-on-directory': return 'The `view_range` parameter is not allowed when `path` points to a directory.'
    case 'view-range-shape': return 'Invalid `view_range` parameter. It should be a list of two integers.'
    case 'view-range-start':
      return `Invalid \`view_range\` parameter: [${stop.range.join(', ')}]. Its first element \`${stop.range[0]}\` should be within the range of lines of the file: `
        + (stop.total === undefined ? 'line numbers start at 1' : `[1, ${stop.total}]`)
    case 'view-range-end-past-file':
      return `Invalid \`view_range\` parameter: [${stop.range.join(', ')}]. Its second element \`${stop.range[1]}\` should be at most the number of lines in the file: \`${stop.total}\``
    case 'view-range-end-before-start':
      return `Invalid \`view_range\` parameter: [${stop.range.join(', ')}]. Its second element \`${stop.range[1]}\` should be larger or equal than its first \`${stop.range[0]}\``
    case 'insert-line-out-of-range':
      return `Invalid \`insert_line\` parameter: ${stop.line}. It should be within the range of lines of the file: [0, ${stop.total}]`
    default: return undefined
  }
}

/** Refusals about the file: the familiar sentence first, then the one next step that works. */
function fileText(stop: EditorStop, reach: TextReach): string {
  switch (stop.kind) {
    case 'not-found': return `The path ${stop.path} does not exist. Please provide a valid path. To make a new file there, use the \`create\` command.`
    case 'not-regular-file':
      return `The path ${stop.path} is ${describeEntry(stop.info)}, not a regular file or directory, so it cannot be viewed. Pass the path of a file or directory.`
    case 'not-text': return `${stop.message.replace(/[.\s]+$/, '')}. ${capitalised(notTextRemedy('show', reach, 'str_replace_editor'))}.`
    case 'already-exists': return alreadyExists(stop.path, stop.empty)
    case 'old-str-empty': return `No replacement was performed, old_str is empty. Quote text that appears verbatim in ${stop.path}, or use \`insert\` to add lines.`
    case 'stale': return `${nothingDone(stop.command)}: ${stop.path} has changed or been deleted since you last viewed it. View the file again, then retry.`
    case 'not-observed': return `${nothingDone(stop.command)}: ${stop.path} has not been viewed in this session. View the file, then retry.`
    case 'no-history': return `No edit history found for ${stop.path}.`
    case 'read-only': return `${readOnlyText(stop.path)}.`
    case 'undo-stale': return `Cannot undo the last edit to ${stop.path}: the file has changed since that edit, and undo never overwrites a later change. `
      + 'View the file, then revert by hand with `str_replace` if still needed.'
    case 'too-large': return `${nothingDone(stop.command)}: ${tooLargeText(stop.path, stop.size, stop.limit)}.`
    case 'linked': return `${nothingDone(stop.command)}: ${linkedText(stop.path, 'editor')}`
    case 'not-a-file': return notAFile(stop, reach)
    case 'stale-current': return renderStale(stop.stale, stop.limits)
    case 'match': return renderMatchFailure(stop.failure, 'editor', stop.limits)
    default: return stop.kind === 'provider' ? providerText(stop) : argumentText(stop)!
  }
}

function alreadyExists(path: string, empty: boolean): string {
  return empty
    ? `File already exists at: ${path}, and it is empty. Cannot overwrite files using command \`create\`. `
      + 'View the file, then use the `insert` command with `insert_line` 0 and the content as `new_str`.'
    : `File already exists at: ${path}. Cannot overwrite files using command \`create\`. View the file, then change it with \`str_replace\` or \`insert\`.`
}

function notAFile(stop: Extract<EditorStop, { kind: 'not-a-file' }>, reach: TextReach): string {
  if (stop.command === 'create') return `${notAFileText(stop.path, stop.nature, 'create', EDITOR_WORDS, reach)}.`
  return `${nothingDone(stop.command)}: ${notAFileText(stop.path, stop.nature, 'change', EDITOR_WORDS, reach)}.`
}

const capitalised = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`

function providerText(stop: Extract<EditorStop, { kind: 'provider' }>): string {
  const remedy = stop.code === 'FS_NOT_ENCODABLE' ? UNENCODABLE_REMEDY
    : stop.code === 'FS_NOT_TEXT' && stop.candidates !== undefined ? undecidedRemedy(stop.candidates, 'str_replace_editor') : undefined
  if (remedy === undefined || stop.message.endsWith(remedy)) return stop.message
  return `${stop.message.replace(/[.\s]+$/, '')}; ${remedy}`
}
