import type { NearestRegion } from './nearest'
import { aroundChange, cutNote, numbered, numberList, plural, type RenderLimits, spanWords } from './render'
import { differs, regionLines } from './render-refusal'
import type { LineSpan } from './snippet'
import type { WindowLine } from './window'

/*
 * What `apply_patch` did, or why it wrote nothing, or where it stopped: data in, the text the model
 * reads out. The closest-text block and its differences are the ones `edit` shows.
 */

/** One file of a patch, as it now stands. */
export type PatchFileReport =
  | { kind: 'added'; path: string; lines: number }
  | { kind: 'deleted'; path: string }
  /** `movedTo` set: the file now lives there; `spans` empty when only moved (or its hunks changed nothing). */
  | { kind: 'updated'; path: string; movedTo?: string; spans: LineSpan[]; counts: { added: number; removed: number }; snippet: WindowLine[] }
  /** Moved, but the update that was to follow failed: the file is at `movedTo` with its old content. */
  | { kind: 'moved-only'; path: string; movedTo: string }

/** Why a hunk of an Update section found no place in its file. `section` and `hunk` are 1-based. */
export interface PatchHunkFailure {
  path: string
  section: number
  hunk: number
  /** The hunk's first line in the patch text (1-based). */
  patchLine: number
  why:
    | { kind: 'not-found'; region: NearestRegion | undefined; earlierLine?: number }
    | { kind: 'ambiguous'; lines: number[]; truncated: boolean }
    | { kind: 'anchor-not-found'; anchor: string; region: NearestRegion | undefined }
    | { kind: 'not-at-end'; lines: number[] }
}

/** A publication that stopped partway: what changed before, what failed, what was not tried. */
export interface PatchPartial {
  changed: PatchFileReport[]
  failed: { path: string; reason: string; uncertain: boolean }
  untouched: string[]
}

/** Files whose snippet a success shows; the rest are listed with their spans only. */
export const PATCH_SNIPPETS = 5

const RETRY = 'Nothing was written to any file; fix that section and send the whole patch again.'

export function renderPatchReport(files: readonly PatchFileReport[], limits: RenderLimits): string {
  const head = `Applied the patch: ${plural(files.length, 'file')} changed.`
  return [head, ...files.map((file, index) => fileLine(file, index < PATCH_SNIPPETS, limits))].join('\n')
}

function fileLine(file: PatchFileReport, withSnippet: boolean, limits: RenderLimits): string {
  switch (file.kind) {
    case 'added': return `- added ${file.path} (${plural(file.lines, 'line')})`
    case 'deleted': return `- deleted ${file.path}`
    case 'moved-only': return `- moved ${file.path} to ${file.movedTo}, but its hunks were NOT applied: its content is still the old one`
    case 'updated': {
      const where = file.movedTo === undefined ? file.path : file.movedTo
      const moved = file.movedTo === undefined ? '' : `moved ${file.path} to ${file.movedTo}`
      if (file.spans.length === 0) return `- ${moved || `left ${file.path} unchanged (its hunks change no byte)`}`
      const spans = `${file.spans.map((span) => spanWords(span)).join(', ')} (+${file.counts.added} -${file.counts.removed})`
      const what = moved ? `${moved} and updated it: ${spans}` : `updated ${where}: ${spans}`
      return `- ${what}${withSnippet ? indent(aroundChange('the first change', file.snippet, limits.maxLineLength)) : ''}`
    }
  }
}

const indent = (text: string) => text.replaceAll('\n', '\n  ')

export function renderPatchHunkFailure(failure: PatchHunkFailure, limits: RenderLimits): string {
  const { path, why } = failure
  const which = `hunk ${failure.hunk} of the Update File section for ${path} (section ${failure.section}, patch line ${failure.patchLine})`
  switch (why.kind) {
    case 'ambiguous': {
      const more = why.truncated ? ' and more' : ''
      return `${cap(which)} matches ${why.truncated ? 'more than ' : ''}${why.lines.length} places in ${path}: `
        + `lines ${numberList(why.lines)}${more}. Add unchanged lines around the change (' ' lines) until it matches once, or put an '@@ <line>' `
        + `anchor line above the hunk naming a line that comes just before the right place (a function or class line). ${RETRY}`
    }
    case 'not-at-end':
      return `${cap(which)} ends with '*** End of File', but its lines are at ${why.lines.length === 1 ? 'line' : 'lines'} ${numberList(why.lines)} of ${path}, `
        + `not at its end. Remove the '*** End of File' line, or quote the file's last lines. ${RETRY}`
    case 'anchor-not-found': {
      const after = failure.hunk === 1 ? '' : ' at or after where the hunk before it ended'
      const head = `The anchor '@@ ${why.anchor}' of ${which} matches no line of ${path}${after}.`
      return `${head}${closest(why.region, 'the anchor', limits)}\nCopy the anchor from a line of the file (it is matched whole, ignoring only its indentation). ${RETRY}`
    }
    case 'not-found': {
      if (why.earlierLine !== undefined) {
        return `${cap(which)} was not found after the hunk before it; its lines occur at line ${why.earlierLine} of ${path}, above that hunk. `
          + `Hunks of one file must come in the file's order: reorder them. ${RETRY}`
      }
      if (why.region === undefined) {
        return `${cap(which)} was not found in ${path}, and no line there resembles its first or last line, even ignoring whitespace and quotes; `
          + `check that its ' ' and '-' lines are text of this file. ${RETRY}`
      }
      return `${cap(which)} was not found in ${path}.${closest(why.region, 'the hunk\'s \' \' and \'-\' lines', limits)}\n`
        + `Copy the hunk's ' ' and '-' lines exactly from these lines (after the prefix, without the line numbers); the match is never approximate, `
        + `whitespace included. ${RETRY}`
    }
  }
}

/** The closest text, as `edit` shows it for old_string, with the differences named for `what`. */
function closest(region: NearestRegion | undefined, what: string, limits: RenderLimits): string {
  if (region === undefined) return ''
  const lines = regionLines(region, limits.maxLineLength)
  const cut = cutNote(lines, limits.maxLineLength, 'fs')
  return ` The closest text is ${spanWords({ start: region.start, end: region.end })}:\n${numbered(lines)}${cut === undefined ? '' : `\n${cut}`}${differs(region, what)}`
}

/** A refusal of one file found before anything was written: the provider's or policy's account, then the retry. */
export function renderPatchRefusal(path: string, section: number, action: string, account: string): string {
  return `apply_patch wrote nothing: section ${section} (${action}: ${path}) was refused. ${cap(account.replace(/\s+$/, ''))}\n`
    + 'No file was changed; once that is resolved, send the whole patch again.'
}

export function renderPatchPartial(partial: PatchPartial, limits: RenderLimits): string {
  const { changed, failed, untouched } = partial
  const lines = [`apply_patch stopped partway: ${plural(changed.length, 'file')} ${changed.length === 1 ? 'was' : 'were'} changed before ${failed.path} failed. `
    + 'The whole patch was checked first; then files are published one at a time, each under its own guard, and this one failed at its publication.']
  if (changed.length > 0) lines.push('Changed (do not send these sections again):', ...changed.map((file) => fileLine(file, false, limits)))
  lines.push(failed.uncertain
    ? `Unknown: ${failed.path} may or may not have changed (${failed.reason.replace(/[.\s]+$/, '')}); read it to see.`
    : `Failed, unchanged: ${failed.path}: ${failed.reason.replace(/[.\s]+$/, '')}.`)
  if (untouched.length > 0) lines.push(`Not attempted, unchanged: ${untouched.join(', ')}.`)
  lines.push('Read the files that were not changed with the dsh `read` tool, then send a patch with only their sections.')
  return lines.join('\n')
}

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** Why a section was refused before anything was written, when the account is the tool's own (not a provider's error). */
export type PatchSectionProblem =
  /** `*** Add File` over something that exists: `entry` says what ("a regular file", "a directory"). */
  | { kind: 'add-exists'; entry: string }
  /** `*** Move to` a path where something exists. */
  | { kind: 'move-exists'; destination: string; entry: string }
  /** The provider lacks the optional method the section needs. */
  | { kind: 'unsupported'; method: 'remove' | 'rename'; provider: string }
  /** The file is named by two sections (or a section and a move). */
  | { kind: 'duplicate'; other: number }
  /** The file is larger than a patch may rewrite (`limit`), or than what is left of the patch's total (`total`). */
  | { kind: 'too-large'; size: number; limit: number; total: number }

export function patchProblemText(path: string, problem: PatchSectionProblem): string {
  switch (problem.kind) {
    case 'add-exists':
      return `${path} already exists (${problem.entry}), and '*** Add File' never overwrites. To change an existing file, read it with the dsh \`read\` tool `
        + `and use '*** Update File: ${path}' with hunks; to make a new file, choose a path where nothing is.`
    case 'move-exists':
      return `the destination ${problem.destination} already exists (${problem.entry}), and '*** Move to' never overwrites. Choose a destination where nothing is, `
        + 'or delete that file first with a patch of its own (read it first).'
    case 'unsupported': {
      const what = problem.method === 'remove' ? 'delete files' : 'move files'
      return `the filesystem provider ${problem.provider} cannot ${what} (it does not implement the optional \`${problem.method}\`). `
        + `Leave the ${problem.method === 'remove' ? "'*** Delete File'" : "'*** Move to'"} out of the patch; the rest of it can be applied without it.`
    }
    case 'duplicate':
      return `${path} is also named by section ${problem.other}; a file may appear in one section of a patch only. Put all its hunks in one '*** Update File' section.`
    case 'too-large':
      return `${path} has ${problem.size} bytes: a patch rewrites files of at most ${problem.limit} bytes, and at most ${problem.total} bytes of files in all. `
        + 'Change a large file with the dsh `edit` tool, or split the patch into several.'
  }
}
