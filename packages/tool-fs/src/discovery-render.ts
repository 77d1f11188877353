import type { FsSearchResult, FsWalkEntry, FsWalkResult } from '@deepseek-ai/dsh-fs'
import { compileRegex, escapeName, type LineMatcher, MAX_REGEX_LINE } from '@deepseek-ai/dsh-fs/kit'
import { cutCodePoints, linePrefix } from './window'

/*
 * Every sentence the model reads from glob, grep and list, built from the provider's data. Paths
 * are absolute and escaped (a name with a newline or quote is shown as a JSON string), so each
 * one can be passed to read or edit as it stands.
 */

export type DiscoveryToolName = 'glob' | 'grep' | 'list'

/** `root` joined with a walk's relative path, escaped for a listing. */
export function shownPath(root: string, relative: string): string {
  return escapeName(root === '/' ? `/${relative}` : `${root}/${relative}`)
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

function incomplete(tool: DiscoveryToolName): string {
  return `[The ${tool} stopped before the end of the tree (too many entries or too much output); pass a narrower path.]`
}

export interface GlobData {
  pattern: string
  root: string
  offset: number
  result: FsWalkResult
  includeIgnored: boolean
  /** When nothing matched: whether ignored files match (so include_ignored would find them). */
  ignoredMatch?: boolean
}

export function renderGlob({ pattern, root, offset, result, includeIgnored, ignoredMatch }: GlobData): string {
  const { entries, total } = result
  if (total === 0) {
    // include_ignored is named only when ignored files do match: otherwise that call would find nothing too.
    const hint = includeIgnored || ignoredMatch !== true
      ? 'check the pattern, or pass another path'
      : 'files excluded by .gitignore do match: to list them too, call the dsh `glob` tool with include_ignored=true'
    return `No files under ${escapeName(root)} match ${JSON.stringify(pattern)}: ${hint}.${result.complete ? '' : `\n${incomplete('glob')}`}`
  }
  if (entries.length === 0) return `${plural(total, 'file')} match ${JSON.stringify(pattern)}; offset=${offset} is past the end. Call glob with an offset below ${total}.`
  const lines = entries.map((entry) => shownPath(root, entry.path))
  const last = offset + entries.length
  const head = `${plural(total, 'file')} under ${escapeName(root)} match ${JSON.stringify(pattern)} (in path order):`
  const notes: string[] = []
  if (last < total) notes.push(`[Showing ${offset + 1}-${last} of ${total}. To see more, call glob with offset=${last}.]`)
  if (!result.complete) notes.push(incomplete('glob'))
  return [head, ...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n')
}

export interface GrepData {
  pattern: string
  /** When nothing matched: whether files skipped as ignored hold a match (so include_ignored would find it). */
  ignoredMatch?: boolean
  /** How the search matched, so that a match inside a long line can be found again to show its stretch. */
  caseInsensitive?: boolean
  root: string
  mode: 'files_with_matches' | 'content' | 'count'
  offset: number
  result: FsSearchResult
  maxLineLength: number
  maxBytes: number
}

export function renderGrep(data: GrepData): string {
  const { pattern, root, mode, offset, result } = data
  const skipped = skippedNote(result)
  if (result.files.length === 0) {
    if (offset > 0) return `No more matches for ${JSON.stringify(pattern)} past offset=${offset}.`
    // include_ignored is named only when ignored files do hold a match: otherwise it would send the model on a call that finds nothing.
    const ignored = data.ignoredMatch === true
      ? 'files excluded by .gitignore do match: to search them too, call the dsh `grep` tool with include_ignored=true'
      : 'check the pattern (a JavaScript regular expression) and the path'
    return `No matches for ${JSON.stringify(pattern)} under ${escapeName(root)}: ${ignored}.${skipped}${result.complete ? '' : `\n${incomplete('grep')}`}`
  }
  let body: string[]
  let shown: number
  let cut = false
  if (mode === 'content') {
    ;({ body, shown, cut } = contentLines(data))
  } else {
    body = result.files.map((file) => mode === 'count' ? `${shownPath(root, file.path)}: ${file.count}` : shownPath(root, file.path))
    shown = result.files.length
  }
  const unit = mode === 'content' ? 'matching line' : 'file'
  const notes: string[] = []
  const next = offset + shown
  if (cut) {
    notes.push(`[Showing ${plural(shown, unit)}: the output reached its size limit. To see more, call grep with the same arguments and offset=${next}.]`)
  } else if (result.more) {
    notes.push(`[Showing ${unit}s ${offset + 1}-${next}; more exist. To see more, call grep with the same arguments and offset=${next}.]`)
  }
  if (skipped !== '') notes.push(skipped.trim())
  if (!result.complete) notes.push(incomplete('grep'))
  return [...body, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n')
}

/** Per file: its path, then its lines in the `read` format. Stops at a whole match when the budget is spent. */
function contentLines({ root, result, maxLineLength, maxBytes, pattern, caseInsensitive }: GrepData): { body: string[]; shown: number; cut: boolean } {
  const body: string[] = []
  let bytes = 0
  let shown = 0
  const longLines: string[] = []
  const stretches: string[] = []
  const regex = compiled(pattern, caseInsensitive === true)
  for (const file of result.files) {
    const path = shownPath(root, file.path)
    const block = [path]
    let blockBytes = Buffer.byteLength(path) + 1
    for (const line of file.lines ?? []) {
      // A match past what a cut line shows: the stretch around it, from its column, as `read` shows it from there.
      const stretch = line.match ? matchStretch(line.text, regex, maxLineLength) : undefined
      if (stretch !== undefined) stretches.push(stretchNote(path, line.line, line.text, stretch))
      const short = stretch === undefined ? cutCodePoints(line.text, maxLineLength) : undefined
      const text = `${linePrefix(line.line)}${stretch?.text ?? short ?? line.text}`
      const size = Buffer.byteLength(text) + 1
      if (line.match && bytes + blockBytes + size > maxBytes && shown > 0) {
        if (block.length > 1) body.push(...block, '')
        return { body: withCutNote(body, longLines, stretches, maxLineLength), shown, cut: true }
      }
      if (short !== undefined) longLines.push(`${path}:${line.line}`)
      block.push(text)
      blockBytes += size
      if (line.match) shown++
    }
    body.push(...block, '')
    bytes += blockBytes + 1
  }
  body.pop()
  return { body: withCutNote(body, longLines, stretches, maxLineLength), shown, cut: false }
}

function withCutNote(body: string[], longLines: string[], stretches: string[], max: number): string[] {
  const notes = stretches.slice(0, 5)
  if (longLines.length > 0) {
    notes.push(`[Lines longer than ${max} characters are cut: ${longLines.slice(0, 5).join(', ')}${longLines.length > 5 ? ', …' : ''}. `
      + 'To see more of one, call the dsh `read` tool with its file_path, offset=<line>, limit=1 and column=<the first character not shown>.]')
  }
  return notes.length === 0 ? body : [...body, '', ...notes]
}

/** Characters shown up to the end of a match found inside a long line: the match and the code before it. */
const BEFORE_MATCH = 160

interface Stretch {
  /** The 1-based character the shown text starts at, and the one the match ends at. */
  from: number
  end: number
  text: string
}

/** The pattern as the search compiled it (the linear-time engine); `undefined` when it does not compile. */
function compiled(pattern: string, caseInsensitive: boolean): LineMatcher | undefined {
  try {
    return compileRegex(pattern, caseInsensitive)
  } catch {
    return undefined
  }
}

/**
 * Where the first match of a line ends: the shortest prefix of the line that holds a match, found
 * by halving (about 20 linear-time tests for a line of a million characters). The engine answers
 * only whether a line matches, and this asks nothing else of it.
 */
function matchEnd(line: string, matcher: LineMatcher): number | undefined {
  if (line.length > MAX_REGEX_LINE || !matcher.test(line)) return undefined
  let low = 0
  let high = line.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (matcher.test(line.slice(0, middle))) high = middle
    else low = middle + 1
  }
  return low
}

/**
 * For a line longer than the cut whose first match ends past what the cut shows: up to
 * `maxLineLength` characters from a little before the match. Columns count characters (code
 * points), as `read`'s column does.
 */
function matchStretch(line: string, matcher: LineMatcher | undefined, maxLineLength: number): Stretch | undefined {
  if (matcher === undefined || cutCodePoints(line, maxLineLength) === undefined) return undefined
  const end = matchEnd(line, matcher)
  if (end === undefined) return undefined
  const endColumn = [...line.slice(0, end)].length
  if (endColumn <= maxLineLength) return undefined
  const from = Math.max(1, endColumn - BEFORE_MATCH + 1)
  const rest = [...line].slice(from - 1)
  return { from, end: endColumn, text: rest.slice(0, maxLineLength).join('') }
}

function stretchNote(path: string, line: number, text: string, stretch: Stretch): string {
  const length = [...text].length
  const end = Math.min(length, stretch.from + maxShown(stretch) - 1)
  return `[Line ${line} of ${path} has ${length} characters; the match ends at column ${stretch.end}, shown above from column ${stretch.from} to ${end}. `
    + `To read it there, call the dsh \`read\` tool with file_path=\`${path}\`, offset=${line}, limit=1, column=${stretch.from}.]`
}

const maxShown = (stretch: Stretch) => [...stretch.text].length

function skippedNote({ skipped }: FsSearchResult): string {
  const parts: string[] = []
  if (skipped.binary > 0) parts.push(`${plural(skipped.binary, 'binary file')}`)
  if (skipped.tooLarge > 0) parts.push(`${plural(skipped.tooLarge, 'file')} too large to search`)
  if (skipped.unreadable > 0) parts.push(`${plural(skipped.unreadable, 'unreadable file')}`)
  const long = skipped.longLines ?? 0
  const note = parts.length === 0 ? '' : ` [Not searched: ${parts.join(', ')}.]`
  if (long === 0) return note
  // The one way to search those lines: a plain-text pattern is tested on lines of any length.
  return `${note} [${plural(long, 'line')} longer than ${MAX_REGEX_LINE / 1024 / 1024} MiB not matched by the regular expression; `
    + 'search them with a plain-text pattern (no special characters).]'
}

export interface ListData {
  root: string
  depth: number
  offset: number
  result: FsWalkResult
}

export function renderList({ root, depth, offset, result }: ListData): string {
  const { entries, total } = result
  const head = `${escapeName(root)}/`
  if (total === 0) return `${head}\n(empty, or every entry is excluded by .gitignore or ignore; set include_ignored to true to see ignored entries)`
  const lines = entries.map((entry) => `${'  '.repeat(entry.path.split('/').length)}${describeEntry(entry)}`)
  const last = offset + entries.length
  const notes: string[] = []
  if (last < total) notes.push(`[Showing entries ${offset + 1}-${last} of ${total}. To see more, call list with offset=${last}.]`)
  if (!result.complete) notes.push(incomplete('list'))
  const footer = `(${plural(total, 'entry').replace('entrys', 'entries')} to depth ${depth}; files are shown with their sizes)`
  return [head, ...lines, '', footer, ...notes].join('\n')
}

function describeEntry(entry: FsWalkEntry): string {
  const name = escapeName(entry.path.slice(entry.path.lastIndexOf('/') + 1))
  switch (entry.type) {
    case 'directory': return `${name}/`
    case 'file': return entry.size === undefined ? name : `${name} (${formatSize(entry.size)})`
    case 'symlink': return `${name} (symlink, not followed)`
    default: return `${name} (special file)`
  }
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
