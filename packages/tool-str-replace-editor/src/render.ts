// Every text the model sees from str_replace_editor is written here, in the wording models know
// from Anthropic's text editor tool, plus the one next step that works after a failure.
import { type FsInfo } from '@deepseek-ai/dsh-fs'
import { describeEntry, escapeName } from '@deepseek-ai/dsh-fs/kit'
import { cutNote, nothingDone, numbered as numberedLines, type TextWindow, viewNotes, type WindowLimits, type WindowLine } from '@deepseek-ai/dsh-tool-text'

export type Command = 'view' | 'create' | 'str_replace' | 'insert' | 'undo_edit'

/**
 * Numbered lines, then a note naming the lines shown cut (as `read` flags them) and the view that
 * shows the first of them whole. `lineView` is true when this already is that one-line view.
 */
function numbered(lines: WindowLine[], maxLineLength: number, lineView = false): string {
  const cut = cutNote(lines, maxLineLength, 'editor', { lineView })
  return cut === undefined ? numberedLines(lines) : `${numberedLines(lines)}\n${cut}`
}

/** Why a window stopped early, and the exact call that shows the rest. */
function continuation(window: TextWindow, end: number | undefined, limits: WindowLimits): string {
  if (window.nextLine === undefined) return ''
  const why = window.limit === 'lines' ? `${limits.maxLines} lines` : formatBytes(limits.maxBytes)
  return `\n${viewNotes.outputCut(why, window.nextLine, end ?? -1)}`
}

export const render = {
  viewFile(path: string, window: TextWindow, end: number | undefined, limits: WindowLimits, fromEnd?: { range: readonly number[]; total: number }): string {
    const single = window.lines.length === 1 && end === window.lines[0]!.number
    const body = window.lines.length === 0 ? '(the file is empty)' : numbered(window.lines, limits.maxLineLength, single)
    const counted = fromEnd === undefined || window.lines.length === 0 ? '' : `\n[view_range [${fromEnd.range.join(', ')}] counts back from the end: `
      + `the file has ${fromEnd.total} line${fromEnd.total === 1 ? '' : 's'}, so this shows from line ${window.lines[0]!.number}.]`
    return `${viewNotes.header(path)}\n${body}${continuation(window, end, limits)}${counted}\n`
  },

  viewDirectory(path: string, paths: string[], cut: { limit: number; omitted: number } | undefined): string {
    const all = [path, ...paths]
    const lines = all.map(shownPath)
    const quoted = lines.some((line, i) => line !== all[i]) ? '\n[Paths with control characters are shown in double quotes, escaped as in JSON.]' : ''
    const more = cut === undefined
      ? ''
      : `\n[Listing cut at ${cut.limit} entries; at least ${cut.omitted} more not shown. View a subdirectory to see more.]`
    return `Here's the files and directories up to 2 levels deep in ${shownPath(path)}, excluding hidden items:\n${lines.join('\n')}${quoted}${more}\n`
  },

  undone(path: string, window: TextWindow, limits: WindowLimits): string {
    const body = window.lines.length === 0 ? '(the file is empty)' : numbered(window.lines, limits.maxLineLength)
    return `Last edit to ${path} undone successfully. ${viewNotes.header(path)}\n`
      + `${body}${continuation(window, undefined, limits)}\n`
  },

  // Failures: the familiar sentence first, then the one next step that works.

  missingParameter: (name: string, command: Command) => `Parameter \`${name}\` is required for command: ${command}`,

  viewRangeOnDirectory: () => 'The `view_range` parameter is not allowed when `path` points to a directory.',

  viewRangeShape: () => 'Invalid `view_range` parameter. It should be a list of two integers.',

  /** `total` is unknown when the start is below 1: the file is not read just to count its lines. */
  viewRangeStart: (range: readonly number[], total: number | undefined) =>
    `Invalid \`view_range\` parameter: [${range.join(', ')}]. Its first element \`${range[0]}\` should be within the range of lines of the file: `
    + (total === undefined ? 'line numbers start at 1' : `[1, ${total}]`),

  viewRangeEndPastFile: (range: readonly number[], total: number) =>
    `Invalid \`view_range\` parameter: [${range.join(', ')}]. Its second element \`${range[1]}\` should be at most the number of lines in the file: \`${total}\``,

  viewRangeEndBeforeStart: (range: readonly number[]) =>
    `Invalid \`view_range\` parameter: [${range.join(', ')}]. Its second element \`${range[1]}\` should be larger or equal than its first \`${range[0]}\``,

  insertLineOutOfRange: (line: number, total: number) =>
    `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${total}]`,

  notFound: (path: string) =>
    `The path ${path} does not exist. Please provide a valid path. To make a new file there, use the \`create\` command.`,

  notRegularFile: (path: string, info: FsInfo) =>
    `The path ${path} is ${describeEntry(info)}, not a regular file or directory, so it cannot be viewed. Pass the path of a file or directory.`,

  notText: (message: string) => `${message.replace(/[.\s]+$/, '')}. This tool views and edits UTF-8 text only: pass the path of a text file.`,

  identical: () => 'No replacement was performed: `old_str` and `new_str` are the same, so the file would not change.',

  alreadyExistsEmpty: (path: string) =>
    `File already exists at: ${path}, and it is empty. Cannot overwrite files using command \`create\`. `
    + 'View the file, then use the `insert` command with `insert_line` 0 and the content as `new_str`.',

  alreadyExists: (path: string) =>
    `File already exists at: ${path}. Cannot overwrite files using command \`create\`. `
    + 'View the file, then change it with `str_replace` or `insert`.',

  oldStrEmpty: (path: string) =>
    `No replacement was performed, old_str is empty. Quote text that appears verbatim in ${path}, or use \`insert\` to add lines.`,

  stale(command: Command, path: string): string {
    return `${nothingDone(command)}: ${path} has changed or been deleted since you last viewed it. View the file again, then retry.`
  },

  notObserved(command: Command, path: string): string {
    return `${nothingDone(command)}: ${path} has not been viewed in this session. View the file, then retry.`
  },

  noHistory: (path: string) => `No edit history found for ${path}.`,

  undoStale: (path: string) =>
    `Cannot undo the last edit to ${path}: the file has changed since that edit, and undo never overwrites a later change. `
    + 'View the file, then revert by hand with `str_replace` if still needed.',
}

/** A path as one line the model can trust: the one escaping rule of every listing (`escapeName`). */
export const shownPath = escapeName

function formatBytes(bytes: number): string {
  return bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`
}

