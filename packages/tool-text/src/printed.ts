import { printedProblem } from './refusal-argument'
import { normalizeLineEndings } from '@deepseek-ai/dsh-fs/kit'
import { readNotes, viewNotes } from './notes'
import { cutNote } from './render'
import { linePrefix, type WindowLine } from './window'

/**
 * What a tool printed around file text, found in text a model is about to write: the `cat -n`
 * numbers of `read` and `view` on every line, or a line that is one of their notes (a cut note, a
 * continuation, the end-of-file marker, the view header). Such text came from a tool, not from the
 * file, and writing it would put it in the file.
 */
export type Printed =
  | { kind: 'line-numbers'; /** The first prefixes, as printed. */ prefixes: string[]; lines: number }
  | { kind: 'note'; /** 1-based line of the checked text. */ line: number; text: string }

/** Prefixes quoted in a refusal. */
const QUOTED_PREFIXES = 3

/**
 * The decoration `text` carries, if any. Line numbers count only when every line that is not blank
 * and not a note starts with exactly the prefix `linePrefix` prints for its number, the numbers
 * rising one by one: a tab-separated file whose lines start with numbers is not mistaken for them.
 */
export function printedIn(text: string): Printed | undefined {
  const normalized = normalizeLineEndings(text)
  const prefixes: string[] = []
  let numbered = true
  let previous: number | undefined
  let index = 0
  // One pass, line by line, without splitting the text: a large content costs its length, once.
  for (let start = 0; start < normalized.length; index++) {
    let end = normalized.indexOf('\n', start)
    if (end < 0) end = normalized.length
    // A line too long for a note is looked at only as far as a line-number prefix reaches.
    const long = end - start > MAX_NOTE_LENGTH
    const line = normalized.slice(start, long ? start + 64 : end)
    start = end + 1
    const trimmed = line.trim()
    if (trimmed.length === 0) continue
    if (!long && isNote(trimmed)) return { kind: 'note', line: index + 1, text: trimmed }
    if (!numbered) continue
    const number = /^ *(\d+)\t/.exec(line)?.[1]
    const value = Number(number)
    // Exactly what the renderer prints for that number, and the next number after the last.
    if (number === undefined || !line.startsWith(linePrefix(value)) || (previous !== undefined && value !== previous + 1)) {
      numbered = false
      continue
    }
    previous = value
    prefixes.push(linePrefix(value))
  }
  if (!numbered || prefixes.length === 0) return undefined
  return { kind: 'line-numbers', prefixes: prefixes.slice(0, QUOTED_PREFIXES), lines: prefixes.length }
}

/** Longer lines are never notes: the longest note names ten line numbers and a path. */
const MAX_NOTE_LENGTH = 4096

/** Notes are bracketed, or the view header; only such lines are matched against the patterns. */
function isNote(line: string): boolean {
  const shaped = (line.startsWith('[') && line.endsWith(']')) || line.startsWith("Here's the result")
  return shaped && notePatterns().some((pattern) => pattern.test(line))
}

/**
 * One pattern per note, made from the note functions themselves: each is rendered with sample
 * values, then every number is widened to any number (a list of them to any list) and every
 * sample string to any text. A reworded note changes its pattern with it. Made on first use and
 * kept: they never change while the process runs.
 */
const notePatterns = once((): RegExp[] => {
  const any = '\uE000'
  const cut = (numbers: number[], extra: object = {}): WindowLine[] => numbers.map((number) => ({ number, text: 'ab', cut: true, ...extra }))
  const samples = [
    readNotes.shownFrom(5, 2001),
    readNotes.continues(1, 2000, 3000, 2001), readNotes.continues(1, 2000, undefined, 2001),
    readNotes.budget(1, 900, 3000, any, 901), readNotes.budget(1, 900, undefined, any, 901),
    readNotes.endOfFile(1), readNotes.endOfFile(30),
    viewNotes.header(any),
    viewNotes.outputCut(any, 2001, -1),
  ]
  for (const lines of [cut([5]), cut([5, 6]), cut([5], { column: 2001 }), cut([5], { length: 4500 })]) {
    for (const family of ['fs', 'editor'] as const) {
      for (const lineView of [false, true]) samples.push(cutNote(lines, 2000, family, { lineView })!)
    }
  }
  return [...new Set(samples)].map((sample) => new RegExp(`^${widen(sample, any)}$`))
})

/** `make`'s result, made on the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined
  return () => (made ??= { value: make() }).value
}

function widen(sample: string, any: string): string {
  return sample.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/-?\d+(?:, -?\d+)+/g, '-?\\d+(?:, -?\\d+)*(?: and \\d+ more)?')
    .replace(/-?\d+/g, '-?\\d+')
    .replaceAll(any, '.+')
}

/** Who refuses: the fs family names its argument and `read`; the editor starts as its refusals do and names `view`. */
export interface PrintedCall {
  family: 'fs' | 'editor'
  /** The argument that holds it, as the text names it: `new_string`, `edits[1].new_string`, or the editor's `` `new_str` ``. */
  argument: string
  /** The editor's command, for its opening words. */
  command?: 'str_replace' | 'insert' | 'create'
}

/** The refusal of text that holds what a tool printed: what it is, where, and the retry that works. */
export function renderPrinted(printed: Printed, call: PrintedCall): string {
  const editor = call.family === 'editor'
  const opening = editor ? `${call.command === 'create' ? 'Nothing was changed' : call.command === 'insert' ? 'No insertion was performed' : 'No replacement was performed'}` : 'Nothing was written'
  const argument = call.argument
  const printer = editor ? 'the `view` command prints' : 'the dsh `read` tool prints'
  if (printed.kind === 'note') {
    return `${opening}: line ${printed.line} of ${argument} is a note ${printer.replace(' prints', ' printed')}, not text of the file: ${JSON.stringify(printed.text)}. `
      + `Retry with ${argument} without that line.`
  }
  const quoted = printed.prefixes.map((prefix) => JSON.stringify(prefix)).join(', ')
  const more = printed.lines > printed.prefixes.length ? ', …' : ''
  return `${opening}: every line of ${argument} starts with a line number and a tab as ${printer} them (${quoted}${more}); they are not part of the file. `
    + `Retry with ${argument} without them: remove from each line everything up to and including its first tab.`
}

/**
 * The refusal for `text` when it holds what a tool printed, else `undefined`. `quoted` is the
 * text the same call quotes from the file (old_string), named too when it carries the same numbers.
 */
export function printedRefusal(text: string, call: PrintedCall, quoted?: { argument: string; text: string }): string | undefined {
  const problem = printedProblem(text, call, quoted)
  return problem?.kind === 'printed' ? renderPrinted(problem.printed, problem.call) : undefined
}
