// What str_replace_editor shows when a command worked, in the wording models know from Anthropic's
// text editor tool. Its refusals are worded by dsh-tool-text (`renderRefusal`), with the fs family's.
import { escapeName } from '@deepseek-ai/dsh-fs/kit'
import {
  cutNote, type FileRefusal, type MutationReport, numbered as numberedLines, renderRefusal, renderReport, type TextReach, type TextWindow, viewNotes, type WindowLimits,
  type WindowLine,
} from '@deepseek-ai/dsh-tool-text'
import { isRefusal, type ToolRefusal, type ToolResult } from '@deepseek-ai/dsh-tools'

/** What a command returns when it worked: the data its text is rendered from. */
export type EditorReply =
  | { kind: 'report'; report: MutationReport }
  | { kind: 'view-file'; path: string; window: TextWindow; end: number | undefined; limits: WindowLimits; fromEnd?: { range: readonly number[]; total: number } }
  | { kind: 'view-directory'; path: string; paths: string[]; cut?: { limit: number; omitted: number } }
  | { kind: 'undone'; path: string; window: TextWindow }
  /** An image or PDF, rendered already by dsh-tool-text's media renderers (the image beside its text). */
  | { kind: 'media'; result: ToolResult }

/** The editor's render step: a refusal in dsh-tool-text's words (for what `reach` reads), a success in the text editor's. */
export function renderReply(data: EditorReply | ToolRefusal<FileRefusal>, limits: WindowLimits, reach: TextReach): string | ToolResult {
  if (isRefusal(data)) return renderRefusal(data.refused, reach)
  if (data.kind === 'media') return data.result
  switch (data.kind) {
    case 'report': return renderReport(data.report, 'editor', limits)
    case 'view-file': return render.viewFile(data.path, data.window, data.end, data.limits, data.fromEnd)
    case 'view-directory': return render.viewDirectory(data.path, data.paths, data.cut)
    case 'undone': return render.undone(data.path, data.window, limits)
  }
}

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
}

/** A path as one line the model can trust: the one escaping rule of every listing (`escapeName`). */
export const shownPath = escapeName

function formatBytes(bytes: number): string {
  return bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`
}

