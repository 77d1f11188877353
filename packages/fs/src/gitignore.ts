import { fsError } from './errors'
import { linearEngine } from './linear'

/*
 * `.gitignore` rules compiled once per file into lookups that cost the same whatever their number:
 * a plain name (`node_modules`), a name ending (`*.log`) and a plain path (`/build/out`) are
 * found in maps, and only rules with wildcards in other places are tested one by one, as regular
 * expressions that cannot backtrack without bound. Matching with the `ignore` package cost about
 * 1 µs per rule per path: 97 KiB of rules froze a walk for 11 s, 781 KiB for 164 s.
 */

/** Rules with wildcards outside a name ending in one file at most (the other kinds cost a lookup). */
export const MAX_WILDCARD_RULES = 128
/** Rules of every kind in force at one directory at most. */
export const MAX_IGNORE_RULES = 100_000

interface Verdict {
  /** Position of the rule among all rules in force: the last matching rule decides, as in git. */
  order: number
  negated: boolean
  dirOnly: boolean
}

interface Tested extends Verdict {
  test(path: string): boolean
}

/** One `.gitignore` (or a list of patterns), compiled: patterns relative to its directory. */
export class RuleSet {
  readonly names = new Map<string, Verdict[]>()
  readonly paths = new Map<string, Verdict[]>()
  readonly endings: (Verdict & { ending: string })[] = []
  readonly tested: Tested[] = []
  count = 0

  /** The deciding rule for `path` (relative to this set's directory), or `undefined` when none matches. */
  decide(path: string, directory: boolean): Verdict | undefined {
    let best: Verdict | undefined
    const consider = (rule: Verdict) => {
      if (rule.dirOnly && !directory) return
      if (best === undefined || rule.order > best.order) best = rule
    }
    const name = path.slice(path.lastIndexOf('/') + 1)
    for (const rule of this.names.get(name) ?? []) consider(rule)
    for (const rule of this.paths.get(path) ?? []) consider(rule)
    // Endings and tested rules are kept in order: from the last down, the first that matches is
    // the last one that does, and none before the best found so far can change the answer.
    for (let i = this.endings.length - 1; i >= 0; i--) {
      const rule = this.endings[i]!
      if (best !== undefined && rule.order < best.order) break
      if ((!rule.dirOnly || directory) && name.endsWith(rule.ending)) {
        consider(rule)
        break
      }
    }
    for (let i = this.tested.length - 1; i >= 0; i--) {
      const rule = this.tested[i]!
      if (best !== undefined && rule.order < best.order) break
      if ((!rule.dirOnly || directory) && rule.test(path)) {
        consider(rule)
        break
      }
    }
    return best
  }
}

const WILDCARD = /[*?[\\]/

/** A pattern line without its comment, negation and unescaped trailing spaces; `undefined` when blank. */
function clean(line: string): { pattern: string; negated: boolean; dirOnly: boolean } | undefined {
  let pattern = line.endsWith('\r') ? line.slice(0, -1) : line
  if (pattern === '' || pattern.startsWith('#')) return undefined
  // Trailing spaces go unless the last one is escaped.
  while (pattern.endsWith(' ') && !pattern.endsWith('\\ ')) pattern = pattern.slice(0, -1)
  let negated = false
  if (pattern.startsWith('!')) {
    negated = true
    pattern = pattern.slice(1)
  } else if (pattern.startsWith('\\!') || pattern.startsWith('\\#')) {
    pattern = pattern.slice(1)
  }
  let dirOnly = false
  if (pattern.endsWith('/')) {
    dirOnly = true
    pattern = pattern.slice(0, -1)
  }
  if (pattern === '' || pattern === '/') return undefined
  return { pattern, negated, dirOnly }
}

/** A class `[...]` starting at `start`, as regex source, and where it ends; `undefined` when unclosed. */
function charClass(pattern: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1
  let negate = false
  if (pattern[i] === '!' || pattern[i] === '^') {
    negate = true
    i++
  }
  let body = ''
  let first = true
  for (; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === ']' && !first) return { source: `[${negate ? '^' : ''}${body}]`, end: i }
    first = false
    if (char === '\\' && i + 1 < pattern.length) {
      body += `\\${pattern[++i]}`
    } else if (char === '-') {
      body += '-'
    } else {
      body += /[\]\\^[]/.test(char) ? `\\${char}` : char
    }
  }
  return undefined
}

const escape = (char: string) => (/[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char)

/** Regex source for one segment's wildcards: `*` and `?` never cross a `/`. */
function segmentSource(segment: string): { source: string; stars: number } {
  let source = ''
  let stars = 0
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i]!
    if (char === '*') {
      while (segment[i + 1] === '*') i++
      source += '[^/]*'
      stars++
    } else if (char === '?') {
      source += '[^/]'
    } else if (char === '[') {
      const cls = charClass(segment, i)
      if (cls === undefined) source += '\\['
      else {
        source += cls.source
        i = cls.end
      }
    } else if (char === '\\' && i + 1 < segment.length) {
      source += escape(segment[++i]!)
    } else {
      source += escape(char)
    }
  }
  return { source, stars }
}

/** The literal a pattern stands for when it has no wildcard (escapes undone), else `undefined`. */
function literalOf(pattern: string): string | undefined {
  if (!WILDCARD.test(pattern)) return pattern
  if (/[*?[]/.test(pattern.replace(/\\./g, ''))) return undefined
  return pattern.replace(/\\(.)/g, '$1')
}

function add(set: RuleSet, order: number, line: string, where: string): void {
  const rule = clean(line)
  if (rule === undefined) return
  const verdict: Verdict = { order, negated: rule.negated, dirOnly: rule.dirOnly }
  set.count++
  let pattern = rule.pattern
  // A slash at the start or in the middle anchors the pattern to the rules' directory.
  const anchored = pattern.includes('/')
  if (pattern.startsWith('/')) pattern = pattern.slice(1)
  const literal = literalOf(pattern)
  if (literal !== undefined) {
    const map = anchored ? set.paths : set.names
    const list = map.get(literal)
    if (list === undefined) map.set(literal, [verdict])
    else list.push(verdict)
    return
  }
  if (!anchored && pattern.startsWith('*') && !pattern.startsWith('**')) {
    const ending = literalOf(pattern.slice(1))
    if (ending !== undefined) return void set.endings.push({ ...verdict, ending })
  }
  const { source, risky } = wildcardSource(pattern, anchored)
  if (set.tested.length >= MAX_WILDCARD_RULES) {
    throw fsError('FS_TOO_LARGE', {
      path: where,
      reason: `holds more than ${MAX_WILDCARD_RULES} rules with wildcards (other than a name ending such as *.log), the most a listing applies`,
    })
  }
  set.tested.push({ ...verdict, test: matcher(source, risky) })
}

/**
 * Regex source for a wildcard pattern (its leading `/` removed), whole-path anchored; `risky` when
 * it could backtrack across segments (a `**`, or a segment with several stars).
 */
function wildcardSource(pattern: string, anchored: boolean): { source: string; risky: boolean } {
  const segments = pattern.split('/')
  let source = anchored ? '^' : '^(?:.*/)?'
  let risky = false
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    const last = i === segments.length - 1
    // A segment of two or more stars alone is `**` (as the ignore package read it).
    if (/^\*{2,}$/.test(segment)) {
      // `**/` any directories (none included), a final `/**` everything inside.
      source += !last ? '(?:.*/)?' : i === 0 ? '.*' : '.+'
      risky = true
      continue
    }
    const compiled = segmentSource(segment)
    if (compiled.stars > 1) risky = true
    source += compiled.source + (last ? '' : '/')
  }
  return { source: `${source}$`, risky }
}

/**
 * A rule's expression: V8's for a pattern with one wildcard per segment and no `**` (its
 * backtracking stays within one segment), RE2's linear engine for anything that could nest.
 */
function matcher(source: string, risky: boolean): (path: string) => boolean {
  if (!risky) {
    const regex = new RegExp(source)
    return (path) => regex.test(path)
  }
  const compiled = linearEngine().compile(source.replaceAll('\\/', '/'))
  return (path) => compiled.test(path)
}

/**
 * Compiles one `.gitignore` text (or a list of patterns) whose rules continue the order `first`.
 * `where` names it in the error when it holds more rules than a listing applies.
 */
export function compileRules(text: string | readonly string[], first: number, where: string): RuleSet {
  const set = new RuleSet()
  const lines = typeof text === 'string' ? text.split('\n') : text
  let order = first
  for (const line of lines) add(set, order++, line, where)
  return set
}
