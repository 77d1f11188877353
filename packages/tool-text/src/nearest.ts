import { normalizeLineEndings } from '@deepseek-ai/dsh-fs/kit'

/** The region of a file closest to a failed `old_string`, and how the two differ. Never applied. */
export interface NearestRegion {
  /** 1-based, inclusive lines of the file. */
  start: number
  end: number
  lines: string[]
  /** Each difference once, with the first line that shows it: "indentation (line 3: …)". */
  differences: string[]
}

/** Above this many characters the search is skipped: a failure path must not hold the event loop. */
const MAX_TEXT = 4 * 1024 * 1024
/** Starting lines scored at most; each costs one pass over the needle's lines. */
const MAX_CANDIDATES = 200
/** A region longer than this is not shown. */
const MAX_REGION_LINES = 40

const LINE_NUMBER_PREFIX = /^ *\d+\t/
const QUOTES = /[`"'\u2018\u2019\u201c\u201d]/g
/** Spaces other than U+0020 that look like one (no-break, thin, ideographic…), and invisible zero-width ones. */
const ODD_SPACES = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g

/**
 * The one normalized comparison: each step forgives one kind of difference a model's copy of a
 * line can have from the file, in the order they are applied. Two lines that are equal after all
 * of them are "the same line"; which steps were needed names what differs. A new kind of drift is
 * one more step here, never a new branch in the report.
 */
const FORGIVEN: readonly { kind: string; words: string; apply: (line: string) => string }[] = [
  { kind: 'invisible', words: 'invisible characters (a byte order mark or zero-width space, U+FEFF or U+200B-U+200D)', apply: (line) => line.replace(ZERO_WIDTH, '') },
  { kind: 'composition', words: 'Unicode composition (an accented letter as one code point in one and as letter plus combining mark in the other: NFC vs NFD)', apply: (line) => line.normalize('NFC') },
  { kind: 'odd-spaces', words: 'no-break or other Unicode spaces where the other has a plain space', apply: (line) => line.replace(ODD_SPACES, ' ') },
  { kind: 'quotes', words: 'quote characters', apply: (line) => line.replace(QUOTES, "'") },
  // Plain blanks only: the Unicode spaces and invisible characters above are kinds of their own.
  { kind: 'whitespace', words: 'whitespace', apply: (line) => line.replace(/[ \t\f\v\r]+/g, ' ').replace(/^ | $/g, '') },
]

/** Every forgiven difference removed: what candidates are found by. */
function loose(line: string): string {
  return FORGIVEN.reduce((value, step) => step.apply(value), line)
}

/** The steps needed to make `have` and `want` compare equal (each dropped in turn if the rest suffice), or undefined if all do not. */
function neededSteps(have: string, want: string, same: (have: string, want: string) => boolean): string[] | undefined {
  const applyAll = (value: string, steps: readonly number[]) => steps.reduce((text, i) => FORGIVEN[i]!.apply(text), value)
  let steps = FORGIVEN.map((_, i) => i)
  if (!same(applyAll(have, steps), applyAll(want, steps))) return undefined
  for (const i of [...steps]) {
    const without = steps.filter((step) => step !== i)
    if (same(applyAll(have, without), applyAll(want, without))) steps = without
  }
  return steps.map((i) => FORGIVEN[i]!.kind)
}

/**
 * Finds where `needle` was probably meant to match in `text`. Bounded: one pass makes the loose form
 * of each line, candidates are only the lines whose loose form equals (or, for a one-line needle,
 * contains) the needle's first or last line, and at most `MAX_CANDIDATES` of them are scored line by
 * line. So the cost is about the file's size plus candidates × needle lines, never file × needle.
 */
export function nearestRegion(text: string, needle: string): NearestRegion | undefined {
  if (text.length > MAX_TEXT || needle.length === 0) return undefined
  const lines = normalizeLineEndings(text).split('\n')
  if (lines.at(-1) === '') lines.pop()
  const quote = quoted(needle)
  const { bare, wantedLoose } = quote
  const n = bare.length
  if (n > MAX_REGION_LINES || wantedLoose.every((line) => line.length === 0)) return undefined
  const fileLoose = lines.map(loose)
  const matchesLine = (k: number, line: number): boolean => {
    const have = fileLoose[line]
    return have !== undefined && sameAfter(have, wantedLoose[k]!, n === 1, k, n) && (n > 1 || wantedLoose[k]!.length > 0)
  }
  const best = bestStart(lines.length, quote, matchesLine)
  if (best === undefined) return undefined
  const numberedNote = quote.numbered ? ['old_string starts with line numbers (number and tab) that are not part of the file'] : []
  const gap = best.score < n ? skippedLines(best.start, n, lines.length, matchesLine) : undefined
  if (gap !== undefined) {
    const region = lines.slice(best.start, best.start + n + gap.count)
    return { start: best.start + 1, end: best.start + region.length, lines: region, differences: [...numberedNote, gapWords(best.start, gap, quote.separated)] }
  }
  const region = lines.slice(best.start, best.start + n)
  const differences = [...numberedNote, ...differencesOf(region, bare, best.start + 1, n === 1)]
  if (quote.endsWithBreak && best.start + n === lines.length && !normalizeLineEndings(text).endsWith('\n')) {
    differences.push('old_string ends with a line break, and the last line of the file has none')
  }
  if (/\r(?!\n)/.test(needle)) differences.push('old_string contains a carriage return (CR) without a line feed')
  return { start: best.start + 1, end: best.start + region.length, lines: region, differences }
}

/** The needle as the model quoted it: its lines without line numbers or grep separators, and their loose forms. */
function quoted(needle: string) {
  let wanted = normalizeLineEndings(needle).split('\n')
  const endsWithBreak = wanted.length > 1 && wanted.at(-1) === ''
  if (endsWithBreak) wanted = wanted.slice(0, -1)
  // grep's separator between groups of context lines is no text of the file: the lines around it are not adjacent there.
  const separated = wanted.length > 2 && wanted.some((line, i) => i > 0 && i < wanted.length - 1 && line === '--')
  if (separated) wanted = wanted.filter((line) => line !== '--')
  const numbered = wanted.every((line) => line.length === 0 || LINE_NUMBER_PREFIX.test(line)) && wanted.some((line) => line.length > 0)
  const bare = numbered ? wanted.map((line) => line.replace(LINE_NUMBER_PREFIX, '')) : wanted
  return { bare, wantedLoose: bare.map(loose), numbered, separated, endsWithBreak }
}

/**
 * The candidate start with the most matching lines: candidates are the lines matching the needle's
 * first line, or ending a run that matches its last line, at most `MAX_CANDIDATES` of them.
 */
function bestStart(total: number, { wantedLoose }: { wantedLoose: string[] }, matchesLine: (k: number, line: number) => boolean) {
  const n = wantedLoose.length
  const candidates = new Set<number>()
  for (let line = 0; line < total && candidates.size < MAX_CANDIDATES; line++) {
    if (wantedLoose[0]!.length > 0 && matchesLine(0, line)) candidates.add(line)
    else if (n > 1 && wantedLoose[n - 1]!.length > 0 && matchesLine(n - 1, line) && line - n + 1 >= 0) candidates.add(line - n + 1)
  }
  let best: { start: number; score: number } | undefined
  for (const start of candidates) {
    let score = 0
    for (let k = 0; k < n; k++) if (matchesLine(k, start + k)) score++
    if (best === undefined || score > best.score) best = { start, score }
  }
  return best
}

/** The lines of the file old_string leaves out, between two of its lines. */
function gapWords(start: number, gap: { at: number; count: number }, separated: boolean): string {
  const first = start + gap.at + 1
  const last = first + gap.count - 1
  const which = gap.count === 1 ? `line ${first}` : `lines ${first}-${last}`
  return `old_string leaves out ${which} of the file, between its lines ${first - 1} and ${last + 1}`
    + `${separated ? ' (grep\'s "--" separates groups of lines that are not adjacent in the file; it is not text of the file)' : ''}`
}

/**
 * Whether the needle's lines match the file from `start` once one run of file lines is skipped
 * between two of them: the model quoted lines that are not adjacent (two grep context groups, or a
 * line it overlooked). `at` is the needle line the run comes before (0-based), `count` its length.
 */
function skippedLines(start: number, n: number, total: number, matches: (k: number, line: number) => boolean): { at: number; count: number } | undefined {
  if (n < 2) return undefined
  for (let count = 1; count <= MAX_REGION_LINES - n && start + n + count <= total; count++) {
    for (let at = 1; at < n; at++) {
      let all = true
      for (let k = 0; k < n && all; k++) all = matches(k, start + k + (k >= at ? count : 0))
      if (all) return { at, count }
    }
  }
  return undefined
}

function differencesOf(region: string[], wanted: string[], firstLine: number, single: boolean): string[] {
  const found = new Map<string, string>()
  const note = (what: string, detail: string) => {
    if (!found.has(what)) found.set(what, detail)
  }
  for (let k = 0; k < wanted.length; k++) {
    const have = region[k]
    if (have === undefined) {
      note('length', `old_string has ${wanted.length} lines; the file ends after line ${firstLine + region.length - 1}`)
      break
    }
    if (!sameAfter(have, wanted[k]!, single, k, wanted.length)) lineDifference({ have, want: wanted[k]!, line: firstLine + k, k, n: wanted.length, single }, note)
  }
  return [...found.values()]
}

/** One line of old_string against the file's line at its place: which of the known differences it shows, first that fits. */
interface LinePair {
  have: string
  want: string
  /** The file's line number. */
  line: number
  /** The line's index in old_string, of `n`. */
  k: number
  n: number
  single: boolean
}

function lineDifference({ have, want, line, k, n, single }: LinePair, note: (what: string, detail: string) => void): void {
  // Indentation and trailing blanks are named in their own words (how many tabs or spaces), plain blanks only.
  const haveIndent = /^[ \t]*/.exec(have)![0]
  const wantIndent = /^[ \t]*/.exec(want)![0]
  const haveRest = have.slice(haveIndent.length).trimEnd()
  const wantRest = want.slice(wantIndent.length).trimEnd()
  // The first line of a longer old_string may start mid-line: its indentation says nothing.
  const indentCounts = single ? wantIndent.length > 0 && haveRest.startsWith(wantRest) : k > 0 && haveRest === wantRest
  if (indentCounts && haveIndent !== wantIndent) {
    if (haveIndent.includes('\t') !== wantIndent.includes('\t')) return note('tabs', `tabs vs spaces (line ${line}: the file indents with ${indentWords(haveIndent)}, old_string with ${indentWords(wantIndent)})`)
    return note('indentation', `indentation (line ${line}: ${indentWords(haveIndent)} in the file, ${indentWords(wantIndent)} in old_string)`)
  }
  const trimBlanks = (value: string) => value.replace(/[ \t]+$/, '')
  if ((trimBlanks(have) !== have || trimBlanks(want) !== want) && sameAfter(trimBlanks(have), trimBlanks(want), single, k, n)) return note('trailing', `trailing whitespace (line ${line})`)
  // A line of old_string (not its last) that is the start of the file's line: copied from a line shown cut.
  if (!single && k < n - 1 && want.length > 0 && have.startsWith(want)) {
    return note('cut', `line ${line} is cut short in old_string: it has the first ${[...want].length} of the line's ${[...have].length} characters `
      + '(a line shown cut shows only its start; copy it whole)')
  }
  const needed = neededSteps(have, want, (a, b) => sameAfter(a, b, single, k, n)) ?? neededSteps(have, want, (a, b) => sameAfter(a, b, true, k, n))
  if (needed === undefined || needed.length === 0) return note('text', `other text (line ${line} differs)`)
  for (const kind of needed) {
    if (kind === 'whitespace') note('spaces', `whitespace inside the line (line ${line})`)
    else note(kind, `${FORGIVEN.find((step) => step.kind === kind)!.words} (line ${line})`)
  }
}

function sameAfter(have: string, want: string, contains: boolean, k: number, n: number): boolean {
  if (contains) return have.includes(want)
  if (k === 0) return have.endsWith(want)
  if (k === n - 1) return have.startsWith(want)
  return have === want
}

function indentWords(indent: string): string {
  if (indent.length === 0) return 'no indentation'
  const tabs = [...indent].filter((char) => char === '\t').length
  const spaces = indent.length - tabs
  const parts = []
  if (tabs > 0) parts.push(`${tabs} tab${tabs === 1 ? '' : 's'}`)
  if (spaces > 0) parts.push(`${spaces} space${spaces === 1 ? '' : 's'}`)
  return parts.join(' and ')
}
