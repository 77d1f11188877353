import { SUPPORTED_ENCODINGS } from './encoding'
import { natureSentence, type TargetNature } from './nature'
import type { TextReach } from './reach'

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
 * The refusal of a call on something that is not a regular file of text the tools read: what it
 * is, then the one step that works with the tools in force (`reach`). Never "read it first": a
 * directory or binary file never becomes editable by being shown, so that remedy would loop.
 */
export function notAFileText(path: string, nature: NotAFile, attempt: Attempt, words: ToolWords, reach: TextReach): string {
  return `${natureSentence(path, nature)}; ${notAFileRemedy(path, nature, attempt, words, reach)}`
}

function notAFileRemedy(path: string, nature: NotAFile, attempt: Attempt, words: ToolWords, reach: TextReach): string {
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
    case 'media':
      // Shown by a read, and then replaceable whole; never changed in part.
      return attempt === 'change'
        ? `${words.change} changes ${textTheyRead(reach)} only; ${words.show} shows this file, and ${words.create} replaces it whole once shown`
        : `${words.show} shows it; show it, then retry`
    case 'binary':
    case 'not-utf8':
      return attempt === 'create' ? `a file that ${words.show} cannot show is never replaced: pass another path` : textOnlyRemedy(attempt, reach)
  }
}

/** The text the tools read and change, as configured. */
function textTheyRead(reach: TextReach): string {
  return reach.encodings ? 'text (UTF-8, UTF-16 or a legacy encoding)' : 'UTF-8 text'
}

/** What the tools in force show and change, for a file that is none of it: then the path to pass instead. */
export function textOnlyRemedy(attempt: Attempt, reach: TextReach): string {
  const [read, instead] = readAndInstead(attempt, reach)
  return `${read}: pass the path of ${instead}`
}

/** "these tools … only", and what to pass instead: a text file, or (a read that shows media) one of those. */
function readAndInstead(attempt: Attempt, reach: TextReach): [string, string] {
  const text = textTheyRead(reach)
  if (!reach.media) return [`these tools show and change ${text} only`, 'a text file']
  return attempt === 'show'
    ? [`these tools show ${text}, images (PNG, JPEG, GIF, WebP) and PDFs only`, 'one of those']
    : [`these tools change ${text} only`, 'a text file']
}

/**
 * The remedy of a file refused as not text when only the provider's account is known of it: a
 * binary file, or bytes that are not exactly text in the encoding tried. With encodings in reach,
 * the second case has a step of its own, naming the encoding; the step for the first ends the text.
 */
export function notTextRemedy(attempt: Attempt, reach: TextReach, tool: string): string {
  if (!reach.encodings) return textOnlyRemedy(attempt, reach)
  const [read, instead] = readAndInstead(attempt, reach)
  return `${read}: if this is text in an encoding the tool could not tell, call the dsh \`${tool}\` tool again with encoding set to it `
    + `(supported: ${SUPPORTED_ENCODINGS.join(', ')}); otherwise pass the path of ${instead}`
}
