import { natureSentence, type TargetNature } from './nature'

/** How a tool family names its own steps, so one remedy text serves both families. */
export interface ToolWords {
  /** Shows a file (and lists a directory): "the dsh `read` tool", "the `view` command". */
  show: string
  /** Changes part of a file. */
  change: string
  /** Makes a new file. */
  create: string
}

export const FS_TOOL_WORDS: ToolWords = { show: 'the dsh `read` tool', change: 'the dsh `edit` tool', create: 'the dsh `write` tool' }
export const EDITOR_WORDS: ToolWords = { show: 'the `view` command', change: 'the `str_replace` command', create: 'the `create` command' }

/**
 * The refusal of a change to a file no one may write (the provider's `read-only` fact). A fact, not
 * a step: no dsh tool changes a file's permissions, and only its owner decides that it may change.
 */
export function readOnlyText(path: string): string {
  return `${path} is read-only: no one has write permission on it, and dsh does not replace, move or remove such a file; nothing was changed`
}

/** What the refused call tried to do to the target. */
export type Attempt = 'show' | 'change' | 'create'

export type NotAFile = Exclude<TargetNature, { kind: 'absent' | 'text' }>

/**
 * The refusal of a call on something that is not a UTF-8 regular file: what it is, then the one
 * step that works. Never "read it first": a directory or binary file never becomes editable by
 * being shown, so that remedy would loop.
 */
export function notAFileText(path: string, nature: NotAFile, attempt: Attempt, words: ToolWords): string {
  return `${natureSentence(path, nature)}; ${notAFileRemedy(path, nature, attempt, words)}`
}

function notAFileRemedy(path: string, nature: NotAFile, attempt: Attempt, words: ToolWords): string {
  switch (nature.kind) {
    case 'directory':
      if (attempt === 'create') return `pass the path of a new file inside it, such as ${path.replace(/\/+$/, '')}/<name>`
      return `pass the path of a file in it (${words.show} lists the directory)`
    case 'special':
      if (nature.info.special === 'broken-symlink') {
        return attempt === 'create'
          ? 'nothing is created through a broken link: pass another path'
          : 'pass the path of an existing file'
      }
      return attempt === 'create' ? 'it is never replaced: pass another path' : 'only regular files can be shown or changed: pass the path of one'
    case 'binary':
    case 'not-utf8':
      return attempt === 'create'
        ? `a file that ${words.show} cannot show is never replaced: pass another path`
        : 'these tools show and change UTF-8 text only: pass the path of a text file'
  }
}
