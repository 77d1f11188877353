/*
 * The patch format of OpenAI's Codex CLI, parsed into data: no I/O, no Cordis. What is accepted
 * follows the format's facts (its grammar and parser tests); the code is ours.
 *
 *   *** Begin Patch
 *   *** Add File: <path>         then `+` lines (the new file's lines)
 *   *** Delete File: <path>
 *   *** Update File: <path>      then optionally `*** Move to: <path>`, then hunks:
 *   @@ [anchor]                  ` ` context, `-` removed, `+` added lines; `*** End of File`
 *   *** End Patch
 */
import { PATCH_MARKERS, type PatchSyntaxProblem, patchSyntaxText } from '@deepseek-ai/dsh-tool-text'

/** One line of a hunk: kept (` `), removed (`-`) or added (`+`). */
export interface HunkLine {
  sign: ' ' | '-' | '+'
  text: string
}

/** One hunk of an Update: the lines it expects (context and removed) and the lines it leaves. */
export interface PatchHunk {
  /** `@@ <text>` lines before the hunk's body, in order: each is a line sought before the hunk. */
  anchors: string[]
  /** Context and removed lines, in order: what the file must contain. */
  oldLines: string[]
  /** Context and added lines, in order: what stands there afterwards. */
  newLines: string[]
  /** Every line in the patch's order: where, between the kept lines, lines go and come. */
  body: HunkLine[]
  /** `*** End of File` closed the hunk: it must match at the end of the file. */
  endOfFile: boolean
  /** 1-based line of the patch where the hunk starts (its `@@`, or its first line). */
  patchLine: number
}

export type PatchSection =
  | { kind: 'add'; path: string; lines: string[]; patchLine: number }
  | { kind: 'delete'; path: string; patchLine: number }
  | { kind: 'update'; path: string; moveTo?: string; hunks: PatchHunk[]; patchLine: number }

/** The patch is not in the format: where (1-based line of the patch text) and why, as data and in dsh-tool-text's words. */
export class PatchSyntaxError extends Error {
  override readonly name = 'PatchSyntaxError'
  readonly reason: string
  constructor(readonly line: number, readonly problem: PatchSyntaxProblem) {
    const reason = patchSyntaxText(problem)
    super(`line ${line}: ${reason}`)
    this.reason = reason
  }
}

const { begin: BEGIN, end: END, add: ADD, delete: DELETE, update: UPDATE, move: MOVE, endOfFile: END_OF_FILE } = PATCH_MARKERS

/** The largest patch text parsed: past it the call is refused before any work (a bound on memory and time). */
export const MAX_PATCH_CHARS = 8 * 1024 * 1024

/** The most sections (files) one patch may have: each is read whole before anything is written. */
export const MAX_PATCH_FILES = 100

/**
 * A heredoc opener as models write it around a patch: `<<EOF`, `<<'EOF'`, `<<"EOF"`, optionally after
 * the command name (`apply_patch <<'PATCH'`). The closing quote must match the opening one.
 */
const HEREDOC = /^(?:apply_patch\s+|applypatch\s+)?<<(?:'([A-Za-z_][\w-]*)'|"([A-Za-z_][\w-]*)"|([A-Za-z_][\w-]*))$/

/**
 * Parses a patch. Leading and trailing whitespace is ignored, CRLF line breaks are read as LF, and a
 * heredoc wrapper (`<<'EOF'` … `EOF`) around the patch is taken off, as Codex's own parser does.
 * Throws `PatchSyntaxError` naming the line at fault.
 */
export function parsePatch(input: string): PatchSection[] {
  const { body, lineNo } = framed(input)
  const sections: PatchSection[] = []
  let at = 0
  while (at < body.length) {
    // Blank lines between sections are tolerated, as a model may leave one.
    if (body[at]!.trim() === '') {
      at++
      continue
    }
    const parsed = parseSection(body, at, lineNo)
    sections.push(parsed.section)
    at = parsed.next
  }
  if (sections.length > MAX_PATCH_FILES) {
    throw new PatchSyntaxError(sections[MAX_PATCH_FILES]!.patchLine, { kind: 'too-many-files', files: sections.length, max: MAX_PATCH_FILES })
  }
  return sections
}

type LineNo = (index: number) => number

/** The lines between the patch's markers, and the 1-based input line of each. */
function framed(input: string): { body: string[]; lineNo: LineNo } {
  if (input.length > MAX_PATCH_CHARS) {
    throw new PatchSyntaxError(1, { kind: 'too-long', chars: input.length, max: MAX_PATCH_CHARS })
  }
  const { lines, firstLine } = unwrap(input)
  if (lines.length === 0 || lines[0]!.trim() !== BEGIN) {
    throw new PatchSyntaxError(firstLine, { kind: 'no-begin' })
  }
  if (lines.length < 2 || lines.at(-1)!.trim() !== END) {
    throw new PatchSyntaxError(firstLine + lines.length - 1, { kind: 'no-end' })
  }
  return { body: lines.slice(1, -1), lineNo: (index) => firstLine + 1 + index }
}

/** The section whose header is `body[at]`, and the index after it. */
function parseSection(body: string[], at: number, lineNo: LineNo): { section: PatchSection; next: number } {
  const header = body[at]!.trim()
  if (header.startsWith(ADD)) return parseAdd(body, at, lineNo)
  if (header.startsWith(DELETE)) return { section: { kind: 'delete', path: pathOf(header, DELETE, lineNo(at)), patchLine: lineNo(at) }, next: at + 1 }
  if (header.startsWith(UPDATE)) return parseUpdate(body, at, lineNo)
  throw new PatchSyntaxError(lineNo(at), { kind: 'not-a-header', line: body[at]! })
}

function parseAdd(body: string[], start: number, lineNo: LineNo): { section: PatchSection; next: number } {
  const patchLine = lineNo(start)
  const path = pathOf(body[start]!.trim(), ADD, patchLine)
  const content: string[] = []
  let at = start + 1
  while (at < body.length && body[at]!.startsWith('+')) content.push(body[at++]!.slice(1))
  // A line that neither adds nor starts the next section: most often a line whose '+' was left out.
  if (at < body.length && body[at]!.trim() !== '' && !body[at]!.trim().startsWith('***')) {
    throw new PatchSyntaxError(lineNo(at), { kind: 'add-line', line: body[at]!, path })
  }
  return { section: { kind: 'add', path, lines: content, patchLine }, next: at }
}

function parseUpdate(body: string[], start: number, lineNo: LineNo): { section: PatchSection; next: number } {
  const patchLine = lineNo(start)
  const path = pathOf(body[start]!.trim(), UPDATE, patchLine)
  let at = start + 1
  let moveTo: string | undefined
  if (at < body.length && body[at]!.trim().startsWith(MOVE)) {
    moveTo = pathOf(body[at]!.trim(), MOVE, lineNo(at))
    at++
  }
  const parsed = parseHunks(body, at, lineNo)
  if (parsed.hunks.length === 0 && moveTo === undefined) {
    throw new PatchSyntaxError(patchLine, { kind: 'no-hunk', path })
  }
  const section: PatchSection = moveTo === undefined ? { kind: 'update', path, hunks: parsed.hunks, patchLine } : { kind: 'update', path, moveTo, hunks: parsed.hunks, patchLine }
  return { section, next: parsed.next }
}

/** The patch's lines without the whitespace around it and without a heredoc wrapper; `firstLine` is the 1-based line of `lines[0]` in the input. */
function unwrap(input: string): { lines: string[]; firstLine: number } {
  const all = input.replaceAll('\r\n', '\n').split('\n')
  let start = 0
  let end = all.length
  while (start < end && all[start]!.trim() === '') start++
  while (end > start && all[end - 1]!.trim() === '') end--
  const opener = start < end ? HEREDOC.exec(all[start]!.trim()) : null
  if (opener !== null && end - start >= 2) {
    const delimiter = opener[1] ?? opener[2] ?? opener[3]!
    if (all[end - 1]!.trim() === delimiter) {
      start++
      end--
      while (start < end && all[start]!.trim() === '') start++
      while (end > start && all[end - 1]!.trim() === '') end--
    }
  }
  return { lines: all.slice(start, end), firstLine: start + 1 }
}

function pathOf(header: string, marker: string, line: number): string {
  const path = header.slice(marker.length).trim()
  if (path.length === 0) throw new PatchSyntaxError(line, { kind: 'no-path', marker })
  return path
}

/** The hunks of an Update section from `start`, up to the next section header or the end. */
function parseHunks(body: string[], start: number, lineNo: LineNo): { hunks: PatchHunk[]; next: number } {
  const reader = new HunkReader()
  let at = start
  for (; at < body.length && !isSectionBoundary(body[at]!); at++) reader.read(body[at]!, lineNo(at))
  reader.close()
  return { hunks: reader.hunks, next: at }
}

/** Reads an Update section's lines one at a time into hunks. */
class HunkReader {
  readonly hunks: PatchHunk[] = []
  current: PatchHunk | undefined
  /** The current hunk's body has begun: a further `@@` starts the next one. */
  bodyStarted = false

  read(line: string, patchLine: number): void {
    if (line.trim() === END_OF_FILE) {
      if (this.current === undefined || !this.bodyStarted) throw new PatchSyntaxError(patchLine, { kind: 'misplaced-end-of-file' })
      this.current.endOfFile = true
      this.close()
    } else if (line.startsWith('@@')) {
      // Consecutive `@@` lines stack their anchors (class, then method); after a body, a new hunk.
      if (this.bodyStarted) this.close()
      this.current ??= emptyHunk(patchLine)
      if (line.slice(2).trim().length > 0) this.current.anchors.push(line.slice(2).replace(/^ /, '').replace(/\s+$/, ''))
    } else {
      this.bodyLine(line, patchLine)
    }
  }

  bodyLine(line: string, patchLine: number): void {
    const sign = line[0]
    if (sign !== ' ' && sign !== '-' && sign !== '+' && line !== '') {
      throw new PatchSyntaxError(patchLine, { kind: 'not-a-hunk-line', line })
    }
    // The first hunk of a section may omit its `@@`.
    if (this.current === undefined) {
      if (this.hunks.length > 0) throw new PatchSyntaxError(patchLine, { kind: 'missing-at-at' })
      this.current = emptyHunk(patchLine)
    }
    this.bodyStarted = true
    // An empty line is an empty context line whose leading space was lost.
    const text = line.slice(1)
    if (sign === '-' || sign === ' ' || line === '') this.current.oldLines.push(text)
    if (sign === '+' || sign === ' ' || line === '') this.current.newLines.push(text)
    this.current.body.push({ sign: line === '' ? ' ' : sign as HunkLine['sign'], text })
  }

  close(): void {
    if (this.current === undefined) return
    if (!this.bodyStarted) throw new PatchSyntaxError(this.current.patchLine, { kind: 'empty-hunk' })
    this.hunks.push(this.current)
    this.current = undefined
    this.bodyStarted = false
  }
}

const emptyHunk = (patchLine: number): PatchHunk => ({ anchors: [], oldLines: [], newLines: [], body: [], endOfFile: false, patchLine })

/** A line that ends an Update section: the next section's header (`*** Add File: …`) or a stray `*** End Patch`. */
function isSectionBoundary(line: string): boolean {
  const trimmed = line.trim()
  return trimmed.startsWith(ADD) || trimmed.startsWith(DELETE) || trimmed.startsWith(UPDATE) || trimmed === END || trimmed.startsWith(MOVE)
}
