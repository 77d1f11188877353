import { FsError, type FsWriteOutcome } from '@deepseek-ai/dsh-fs'
import { countLines, decodingOf, editorRefused, rangeWindow, seenOfWindow } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type { EditorReply } from './render'
import { type Editor, providerRefusal, type Refused, refusedAs } from './runtime'
import type { Input } from './schema'

/**
 * `undo_edit`: puts back the text from before this session's last `str_replace`/`insert` of the
 * file, as a `replaceIfVersion` at the version that edit produced. Any later change, by anyone,
 * moved the version, so the provider refuses with `FS_STALE_VERSION` and the file is not touched.
 * The policy is not asked: the guard here is stricter than any observation it holds.
 */
export async function undoEdit(editor: Editor, input: Input, exec: ToolExecution): Promise<EditorReply | Refused> {
  const target = await editor.resolve(input.path, exec)
  const history = editor.histories.of(exec.agent?.session)
  const entry = history.peek(target.targetKey)
  if (entry === undefined) return editorRefused('NO_EDIT_HISTORY', { kind: 'no-history', path: target.displayPath })
  let outcome: FsWriteOutcome
  try {
    outcome = await editor.ctx.fs.writeText(target, entry.previous, { expected: { kind: 'replaceIfVersion', version: entry.written }, signal: exec.signal, decoding: decodingOf(exec) })
  } catch (error) {
    if (FsError.is(error, 'FS_STALE_VERSION')) return refusedAs(error, { kind: 'undo-stale', path: target.displayPath })
    return providerRefusal(error)
  }
  history.popTo(target.targetKey, outcome.version)
  // What was seen of the restored version is what this reply shows of it.
  const window = await rangeWindow([outcome.after], 1, undefined, editor.window)
  editor.observe(target, { kind: 'present', version: outcome.version, seen: seenOfWindow(window.lines, countLines(outcome.after)) }, exec)
  return { kind: 'undone', path: target.displayPath, window }
}
