import { type FsEncodingCandidate, type FsError, type FsErrorCode, fsError, type FsSeenLines } from '@deepseek-ai/dsh-fs'
import { UNENCODABLE_REMEDY, undecidedRemedy } from './encoding'
import { refuse, type ToolRefusal } from '@deepseek-ai/dsh-tools'
import { type Attempt, FS_TOOL_WORDS, type NotAFile, notAFileText, notTextRemedy, readOnlyText } from './remedies'
import { type TextReach, UTF8_ONLY } from './reach'
import { linkedText } from './refusal-words'
import { tooLargeText } from './nature'
import { renderMatchFailure, renderStale } from './render-refusal'
import type { MatchFailure } from './report'
import { renderNotSeen } from './render-unseen'
import type { WindowLine } from './window'

/*
 * Every refusal the model reads from dsh-tool-fs (read, write, edit, multi_edit, glob, grep, list),
 * from the data the tools return: the provider's account of what failed, what the tool learned on
 * the failure path, and the one step that works. Providers' messages describe what happened; the
 * remedy is added here.
 */

export type FsToolName = 'read' | 'write' | 'edit'
export type DiscoveryToolName = 'glob' | 'grep' | 'list'

/** What a tool learned on a failure path, beyond the provider's error. */
export type FailureDetail =
  /** The target is a directory, special file, binary or non-UTF-8 file: named before any read-first remedy. */
  | { kind: 'not-a-file'; nature: NotAFile }
  /** An edit of a path the session never saw, and nothing is there: creating it works at once. */
  | { kind: 'missing' }
  /** The path is a symbolic link to a text file the session has not read (say, a file swapped for a link since the read). */
  | { kind: 'linked' }
  /** A text file larger than the provider changes: refused by its size, before any read-first rule. */
  | { kind: 'too-large'; size: number; limit: number }
  /** Stale, and the file is gone now; recorded as absent (`staleRefusalObserves`). */
  | { kind: 'stale-absent'; maxLineLength: number }
  /** Stale; the current version's text, recorded as read (`staleRefusalObserves`). */
  | { kind: 'stale-shown'; lines: WindowLine[]; totalLines: number; where: 'match' | 'nearest' | 'start'; maxLineLength: number }
  /** old_string matched nothing (the closest region, if any resembles it) or more than once (each line it is on). */
  | { kind: 'match'; failure: MatchFailure; maxLineLength: number }
  /** A whole-file replacement refused by the policy's seen rule: what the session was shown of the version. */
  | { kind: 'not-seen'; seen: FsSeenLines | undefined }

/** A refused fs-family call, as data: the provider's account (code, message, path) and what the tool learned. */
export interface FsRefusal {
  tool: FsToolName | DiscoveryToolName
  /** The provider's or policy's code, as it raised it. */
  raised: FsErrorCode
  message: string
  path: string | undefined
  detail?: FailureDetail
  /** An undecided encoding (`FS_NOT_TEXT`): the encodings the detector found possible. */
  candidates?: readonly FsEncodingCandidate[]
  /** The provider found the file read-only (its `fact`): said as such, with the step that works. */
  readOnly?: true
}

/** A refusal of `tool` for `error`; `path` is the target's display path when it resolved. */
export function fsRefused(tool: FsToolName | DiscoveryToolName, error: FsError, detail?: FailureDetail, path = error.path): ToolRefusal<FsRefusal> {
  const refusal: FsRefusal = {
    tool, raised: error.code, message: error.message, path, ...(detail === undefined ? {} : { detail }), ...(error.candidates === undefined ? {} : { candidates: error.candidates }),
    ...(error.fact === 'read-only' ? { readOnly: true as const } : {}),
  }
  return refuse(codeOf(refusal), refusal)
}

/** What a host reads: the nature or size that decided the refusal, else the provider's code. */
function codeOf({ raised, detail }: FsRefusal): string {
  if (detail?.kind === 'not-a-file') return ['binary', 'not-utf8', 'media'].includes(detail.nature.kind) ? 'FS_NOT_TEXT' : 'FS_NOT_REGULAR_FILE'
  return detail?.kind === 'too-large' ? 'FS_TOO_LARGE' : raised
}

const ATTEMPTS: Record<FsToolName, Attempt> = { read: 'show', edit: 'change', write: 'create' }

/** The text of a refused fs-family call, for tools that read what `reach` says (UTF-8 text only by default). */
export function renderFsRefusal(refusal: FsRefusal, reach: TextReach = UTF8_ONLY): string {
  const { tool } = refusal
  if (tool === 'glob' || tool === 'grep' || tool === 'list') return discoveryText(tool, refusal)
  const path = refusal.path ?? 'the file'
  const { detail } = refusal
  switch (detail?.kind) {
    case 'not-a-file': return `${notAFileText(path, detail.nature, ATTEMPTS[tool], FS_TOOL_WORDS, reach)}.`
    case 'missing': return `${path} does not exist; create it with the dsh \`write\` tool.`
    case 'too-large': return `${tooLargeText(path, detail.size, detail.limit)}.`
    case 'linked': return linkedText(path, 'fs')
    case 'stale-absent': return renderStale({ kind: 'stale-absent', path, call: staleCall(tool) }, detail)
    case 'stale-shown': return renderStale({ ...detail, path, call: staleCall(tool), reason: refusal.message }, detail)
    case 'match': return renderMatchFailure(detail.failure, 'fs', detail)
    case 'not-seen': return renderNotSeen(path, detail.seen)
    default: return refusal.readOnly === true ? `${readOnlyText(path)}.` : withRemedy(refusal.message, encodingRemedyOf(refusal) ?? remedyFor(tool, refusal.raised, reach))
  }
}

/** An encoding refusal's remedy: how to name the encoding, or which characters it lacks. */
function encodingRemedyOf({ raised, candidates, tool }: FsRefusal): string | undefined {
  if (raised === 'FS_NOT_ENCODABLE') return UNENCODABLE_REMEDY
  return raised === 'FS_NOT_TEXT' && candidates !== undefined ? undecidedRemedy(candidates, tool) : undefined
}

const staleCall = (tool: FsToolName) => tool === 'write' ? 'write' : 'edit'

/** The provider's account, then the remedy; the remedy ends the text, verbatim: hosts and tests recognise it by its last words. */
function withRemedy(message: string, remedy: string | undefined): string {
  const account = message.replace(/[.\s]+$/, '')
  return remedy === undefined ? `${account}.` : `${account}${remedy.startsWith(' (') ? '' : '; '}${remedy}`
}

function remedyFor(tool: FsToolName, code: FsErrorCode, reach: TextReach): string | undefined {
  switch (code) {
    // The seed notes' remedies, kept word for word after the semicolon; the tool is named before it.
    case 'FS_STALE_VERSION': return ' (the dsh `read` tool shows the file); re-read the file, then retry'
    case 'FS_NOT_OBSERVED': return ' (the dsh `read` tool shows the file); read the file, then retry'
    case 'FS_NOT_FOUND':
      if (tool === 'edit') return 'create it with the dsh `write` tool'
      return tool === 'read' ? 'check the path, or create the file with the dsh `write` tool' : undefined
    case 'FS_EDIT_NOT_FOUND': return 'quote text that exists in the file'
    case 'FS_AMBIGUOUS_EDIT': return 'include more surrounding lines in old_string so it matches once, or set replace_all to true'
    case 'FS_NOT_REGULAR_FILE': return 'pass the path of a regular file'
    case 'FS_NOT_TEXT': return notTextRemedy(ATTEMPTS[tool], reach, tool)
    case 'FS_NOT_DIRECTORY': return 'a parent of this path is a file; choose another path'
    case 'FS_OUTSIDE_ROOT': return 'use a path inside the workspace'
    case 'FS_INVALID_PATH': return 'pass a valid file path'
    default: return undefined
  }
}

/** A discovery tool's refusal: the provider's account, then the one step that works. */
function discoveryText(tool: DiscoveryToolName, refusal: FsRefusal): string {
  const message = plainMessage(refusal).replace(/[.\s]+$/, '')
  const remedy = discoveryRemedy(tool, refusal)
  return remedy === undefined ? `${message}.` : `${message}; ${remedy}`
}

/**
 * A provider's message may name the operation it failed in (`read <path>: does not exist (ENOENT)`),
 * which is no tool the model knows. Where the code alone says what happened to the path, the
 * contract's own sentence for it is shown instead.
 */
function plainMessage({ raised, message, path }: FsRefusal): string {
  if (path === undefined || !PLAIN_CODES.has(raised)) return message
  return fsError(raised, { path }).message
}

const PLAIN_CODES = new Set<FsErrorCode>(['FS_NOT_FOUND', 'FS_NOT_DIRECTORY', 'FS_NOT_REGULAR_FILE', 'FS_PERMISSION_DENIED'])

function discoveryRemedy(tool: DiscoveryToolName, { raised, message }: FsRefusal): string | undefined {
  switch (raised) {
    case 'FS_INVALID_PATTERN': return patternRemedy(tool, message)
    case 'FS_NOT_FOUND': return 'check the path: the dsh `list` tool with no path shows what exists in the working directory'
    case 'FS_NOT_DIRECTORY': return tool === 'grep'
      ? 'path must be a directory; to search one file, pass its directory as path and its name as glob'
      : 'path must be a directory; pass the directory that contains it'
    case 'FS_OUTSIDE_ROOT': return 'use a path inside the workspace'
    // Only ignore rules are too large for a walk: skipping the .gitignore files is the way past them.
    case 'FS_TOO_LARGE': return message.includes('ignore patterns')
      ? 'pass fewer ignore patterns'
      : `call ${tool} again with include_ignored: true (no .gitignore file is read then), or with a path below that directory`
    case 'FS_INVALID_PATH': return 'pass a valid directory path'
    default: return undefined
  }
}

function patternRemedy(tool: DiscoveryToolName, message: string): string {
  if (tool !== 'grep' || !message.includes('regular expression')) {
    return 'fix the glob: it is relative to path, like **/*.ts or src/*.{js,ts}; escape [ ] { } ( ) * ? with a backslash to match them literally'
  }
  if (/not supported|over the limit/.test(message)) {
    return 'rewrite the pattern without lookaround or backreferences (and under the length limit), or search for a plain-text part of it'
  }
  return 'fix the pattern: it is a JavaScript regular expression, so escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally'
}
