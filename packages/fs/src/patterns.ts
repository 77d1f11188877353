import picomatch from 'picomatch'
import type { RE2JS } from 're2js'
import { FsError, fsError } from './errors'
import { compileRules, MAX_IGNORE_RULES, type RuleSet } from './gitignore'
import { linearEngine } from './linear'

function invalid(what: string, pattern: string, why: string): FsError {
  return fsError('FS_INVALID_PATTERN', { reason: `invalid ${what} ${JSON.stringify(pattern)}: ${why}` })
}

/**
 * Compiles globs matched against paths relative to a walk's root. A glob that would reach above
 * the root (absolute, or with a `..` segment) is refused rather than silently never matching.
 */
export function compileGlobs(globs: readonly string[], matchBase = false): (path: string) => boolean {
  for (const glob of globs) {
    if (glob.length === 0) throw invalid('glob', glob, 'it is empty')
    if (glob.includes('\0')) throw invalid('glob', glob, 'it contains a NUL character')
    if (glob.startsWith('/')) throw invalid('glob', glob, 'it is absolute; globs are relative to the search path')
    if (glob.split('/').includes('..')) throw invalid('glob', glob, 'a `..` segment leaves the search path')
  }
  if (globs.join('').length > MAX_GLOB_LENGTH) throw invalid('glob', globs.join(' ').slice(0, 200), `it is longer than ${MAX_GLOB_LENGTH} characters`)
  let regexes: { test(path: string): boolean }[]
  try {
    regexes = globs.map((glob) => linearMatcher(glob, picomatch.makeRe(glob, { dot: true, strictBrackets: true })))
  } catch (error) {
    if (FsError.is(error)) throw error
    throw invalid(globs.length === 1 ? 'glob' : 'globs', globs.join(' '), error instanceof Error ? error.message : String(error))
  }
  // picomatch's own matcher builds a result object per call; a walk tests every file, so the
  // compiled expressions are tested directly, with the same rules: a path equal to its glob
  // matches, an empty one never does, and `matchBase` tests the last segment. A glob ending in
  // `*.ext` first checks the ending, which turns most paths away before the expression runs.
  const tests = globs.map((glob, i) => {
    const regex = regexes[i]!
    const suffix = requiredSuffix(glob)
    if (suffix === undefined) return (path: string, subject: string) => path === glob || regex.test(subject)
    const slashed = `${suffix}/`
    return (path: string, subject: string) =>
      path === glob || (subject.endsWith(suffix) || subject.endsWith(slashed)) && regex.test(subject)
  })
  if (tests.length === 1) {
    const test = tests[0]!
    return matchBase ? (path) => path !== '' && test(path, lastSegment(path)) : (path) => path !== '' && test(path, path)
  }
  return (path) => {
    if (path === '') return false
    const subject = matchBase ? lastSegment(path) : path
    for (const test of tests) if (test(path, subject)) return true
    return false
  }
}

/** The longest glob (or globs together) a walk takes. */
export const MAX_GLOB_LENGTH = 1024

/**
 * A glob whose expression V8 runs in time bounded by the path times one segment: at most one `**`
 * and at most one run of stars in every other segment, no extglob. Others (`*a*a*a*b` took
 * 100 ms on a 100-character name, and grows as a power of the name's length) run on RE2.
 */
function backtracksLittle(glob: string): boolean {
  let globstars = 0
  for (const segment of glob.split('/')) {
    if (/^\*\*+$/.test(segment)) {
      globstars++
      continue
    }
    if ((segment.match(/\*+/g) ?? []).length > 1 || /[@!+*?]\(/.test(segment)) return false
  }
  return globstars <= 1
}

// picomatch's guards against `.` and `..` segments and empty stars: a walk's paths never hold an
// empty, `.` or `..` segment, so without them the expression means the same there, and RE2 takes it.
const GUARDS = ['(?!(?:^|\\/)\\.{1,2}(?:\\/|$))', '(?!\\.{1,2}(?:\\/|$))', '(?=.)']

function linearMatcher(glob: string, regex: RegExp): { test(path: string): boolean } {
  if (backtracksLittle(glob)) return regex
  let source = regex.source
  for (const guard of GUARDS) source = source.split(guard).join('')
  let compiled: RE2JS
  try {
    compiled = linearEngine().compile(source)
  } catch {
    throw invalid('glob', glob, 'a !(…) pattern with other wildcards is not supported; match the names to keep instead')
  }
  return { test: (path) => compiled.test(path) }
}

/** The name a `matchBase` glob is tested on: the last segment, or the one before a trailing `/`. */
function lastSegment(path: string): string {
  const end = path.endsWith('/') ? path.length - 1 : path.length
  return path.slice(path.lastIndexOf('/', end - 1) + 1, end)
}

/**
 * The plain text every path matching `glob` ends with (before picomatch's optional trailing `/`):
 * the tail of a last segment `*tail` made of name characters only. Not for a negated glob, nor
 * one whose last `/` could sit inside a brace or extglob (the tail would then hold `}` or `)`).
 */
function requiredSuffix(glob: string): string | undefined {
  if (glob.startsWith('!')) return undefined
  return /(?:^|\/)\*([\w.-]+)$/.exec(glob)?.[1]
}

const META = new Set('\\^$.|?*+()[]{}')

/** The pattern itself when it has no regular-expression syntax at all. */
export function plainLiteral(pattern: string): string | undefined {
  for (const char of pattern) if (META.has(char)) return undefined
  return pattern.length > 0 ? pattern : undefined
}

/**
 * A text every line matching `pattern` must contain: the longest run of plain characters outside
 * any group, class or alternation. Backends use it to skip files cheaply (remotely: `grep -F`)
 * before the real regular expression runs; `undefined` when no such run can be proved.
 */
export function requiredLiteral(pattern: string, caseInsensitive = false): string | undefined {
  let best = ''
  let run = ''
  const end = () => {
    if (run.length > best.length) best = run
    run = ''
  }
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === '|' || char === '(' || char === ')') return undefined
    if (char === '\\') {
      const next = pattern[i + 1]
      i++
      if (next !== undefined && META.has(next) || next === '/' || next === '-') run += next
      else end()
    } else if (char === '[') {
      i = classEnd(pattern, i)
      end()
    } else if (char === '?' || char === '*' || char === '{') {
      // The character before is optional (or repeated zero times): it is not required.
      run = run.slice(0, -1)
      end()
      if (char === '{') while (i < pattern.length && pattern[i] !== '}') i++
    } else if (char === '+' || char === '.' || char === '^' || char === '$') {
      end()
    } else {
      // A character followed by an optional quantifier is dropped by the branch above.
      run += char
    }
  }
  end()
  if (best.length === 0) return undefined
  // Only ASCII folds the same way in JavaScript's `i` and in byte-oriented tools.
  if (caseInsensitive && /[^\x20-\x7e]/.test(best)) return undefined
  return best
}

/** Where the character class opened at `open` closes (a `]` right after `[` or `[^` is a member). */
function classEnd(pattern: string, open: number): number {
  let j = open + 1
  if (pattern[j] === '^') j++
  if (pattern[j] === ']') j++
  while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1
  return j
}

interface IgnoreLayer {
  /** The directory the rules belong to, relative to the walk's root ('' = the root). */
  base: string
  rules: RuleSet
}

/**
 * The `.gitignore` files in force at one directory of a walk: each layer's patterns are relative to
 * its own directory, deeper layers decide last (a deeper `!pattern` re-includes), as in git. Each
 * file is compiled once (`compileRules`); a stack holding more than `MAX_IGNORE_RULES` rules, or a
 * file with more than `MAX_WILDCARD_RULES` costly ones, fails `FS_TOO_LARGE` naming the file.
 */
export class IgnoreStack {
  private constructor(private readonly layers: readonly IgnoreLayer[], private readonly count: number) {}

  static empty(): IgnoreStack {
    return new IgnoreStack([], 0)
  }

  /** The stack with `text` (a `.gitignore` or a list of patterns) added for directory `base`; `where` names it in errors. */
  with(base: string, text: string | readonly string[], where = base === '' ? '.gitignore' : `${base}/.gitignore`): IgnoreStack {
    const rules = compileRules(text, 0, where)
    const count = this.count + rules.count
    if (count > MAX_IGNORE_RULES) {
      throw fsError('FS_TOO_LARGE', { path: where, reason: `brings the .gitignore rules in force to ${count}, over the ${MAX_IGNORE_RULES} a listing applies` })
    }
    return new IgnoreStack([...this.layers, { base, rules }], count)
  }

  get size(): number {
    return this.layers.length
  }

  ignores(path: string, directory: boolean): boolean {
    let ignored = false
    for (const { base, rules } of this.layers) {
      const relative = base === '' ? path : path.slice(base.length + 1)
      const verdict = rules.decide(relative, directory)
      if (verdict !== undefined) ignored = !verdict.negated
    }
    return ignored
  }
}

/**
 * Splits a glob into the directory it starts from and the rest: `../lib/**\/*.ts` into `../lib`
 * and `**\/*.ts`, `/abs/src/*.ts` into `/abs/src` and `*.ts`. A glob with no leading plain part
 * has base `''`.
 */
export function globBase(pattern: string): { base: string; glob: string } {
  const scanned = picomatch.scan(pattern)
  if (!scanned.isGlob) {
    const slash = pattern.lastIndexOf('/')
    return slash < 0 ? { base: '', glob: pattern } : { base: pattern.slice(0, slash) || '/', glob: pattern.slice(slash + 1) }
  }
  return { base: scanned.base, glob: scanned.glob }
}
