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

/** Whitespace runs to one space, ends trimmed, every quote the same: what the comparison forgives. */
function loose(line: string): string {
  return line.replace(QUOTES, "'").replace(/\s+/g, ' ').trim()
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
  let wanted = normalizeLineEndings(needle).split('\n')
  const endsWithBreak = wanted.length > 1 && wanted.at(-1) === ''
  if (endsWithBreak) wanted = wanted.slice(0, -1)
  const numbered = wanted.every((line) => line.length === 0 || LINE_NUMBER_PREFIX.test(line)) && wanted.some((line) => line.length > 0)
  const bare = numbered ? wanted.map((line) => line.replace(LINE_NUMBER_PREFIX, '')) : wanted
  const wantedLoose = bare.map(loose)
  const n = bare.length
  if (n > MAX_REGION_LINES || wantedLoose.every((line) => line.length === 0)) return undefined

  const fileLoose = lines.map(loose)
  const single = n === 1
  const matchesLine = (k: number, line: number): boolean => {
    const have = fileLoose[line]
    const want = wantedLoose[k]!
    if (have === undefined) return false
    if (single) return want.length > 0 && have.includes(want)
    // The first and last lines of old_string may be parts of lines.
    if (k === 0) return have.endsWith(want)
    if (k === n - 1) return have.startsWith(want)
    return have === want
  }

  const candidates = new Set<number>()
  for (let line = 0; line < lines.length && candidates.size < MAX_CANDIDATES; line++) {
    if (wantedLoose[0]!.length > 0 && matchesLine(0, line)) candidates.add(line)
    else if (!single && wantedLoose[n - 1]!.length > 0 && matchesLine(n - 1, line) && line - n + 1 >= 0) candidates.add(line - n + 1)
  }
  let best: { start: number; score: number } | undefined
  for (const start of candidates) {
    let score = 0
    for (let k = 0; k < n; k++) if (matchesLine(k, start + k)) score++
    if (best === undefined || score > best.score) best = { start, score }
  }
  if (best === undefined) return undefined
  const region = lines.slice(best.start, best.start + n)
  const differences = differencesOf(region, bare, best.start + 1, single)
  if (numbered) differences.unshift('old_string starts with line numbers (number and tab) that are not part of the file')
  if (endsWithBreak && best.start + n === lines.length && !normalizeLineEndings(text).endsWith('\n')) {
    differences.push('old_string ends with a line break, and the last line of the file has none')
  }
  if (/\r(?!\n)/.test(needle)) differences.push('old_string contains a carriage return (CR) without a line feed')
  return { start: best.start + 1, end: best.start + region.length, lines: region, differences }
}

function differencesOf(region: string[], wanted: string[], firstLine: number, single: boolean): string[] {
  const found = new Map<string, string>()
  const note = (what: string, detail: string) => {
    if (!found.has(what)) found.set(what, detail)
  }
  for (let k = 0; k < wanted.length; k++) {
    const have = region[k]
    const want = wanted[k]!
    const line = firstLine + k
    if (have === undefined) {
      note('length', `old_string has ${wanted.length} lines; the file ends after line ${firstLine + region.length - 1}`)
      break
    }
    if (single ? have.includes(want) : k === 0 ? have.endsWith(want) : k === wanted.length - 1 ? have.startsWith(want) : have === want) continue
    const haveIndent = /^\s*/.exec(have)![0]
    const wantIndent = /^\s*/.exec(want)![0]
    const haveRest = have.slice(haveIndent.length).trimEnd()
    const wantRest = want.slice(wantIndent.length).trimEnd()
    // The first line of a longer old_string may start mid-line: its indentation says nothing.
    const indentCounts = single ? wantIndent.length > 0 && haveRest.startsWith(wantRest) : k > 0 && haveRest === wantRest
    if (indentCounts && haveIndent !== wantIndent) {
      if (haveIndent.includes('\t') !== wantIndent.includes('\t')) note('tabs', `tabs vs spaces (line ${line}: the file indents with ${indentWords(haveIndent)}, old_string with ${indentWords(wantIndent)})`)
      else note('indentation', `indentation (line ${line}: ${indentWords(haveIndent)} in the file, ${indentWords(wantIndent)} in old_string)`)
      continue
    }
    if (have.trimEnd() !== have || want.trimEnd() !== want) {
      if (sameAfter(have.trimEnd(), want.trimEnd(), single, k, wanted.length)) {
        note('trailing', `trailing whitespace (line ${line})`)
        continue
      }
    }
    const squash = (value: string) => value.replace(/[ \t]+/g, ' ').trim()
    if (sameAfter(squash(have), squash(want), true, k, wanted.length)) {
      note('spaces', `whitespace inside the line (line ${line})`)
      continue
    }
    const unquote = (value: string) => value.replace(QUOTES, "'")
    if (sameAfter(unquote(have), unquote(want), single, k, wanted.length) || sameAfter(loose(have), loose(want), true, k, wanted.length)) {
      note('quotes', `quote characters (line ${line})`)
      continue
    }
    note('text', `other text (line ${line} differs)`)
  }
  return [...found.values()]
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
