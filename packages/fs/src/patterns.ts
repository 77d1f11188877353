import ignore, { type Ignore } from 'ignore'
import picomatch from 'picomatch'
import { type FsError, fsError } from './errors'

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
  let regexes: RegExp[]
  try {
    regexes = globs.map((glob) => picomatch.makeRe(glob, { dot: true, strictBrackets: true }))
  } catch (error) {
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
      // Skip the class (a `]` right after `[` or `[^` is a member).
      let j = i + 1
      if (pattern[j] === '^') j++
      if (pattern[j] === ']') j++
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1
      i = j
      end()
    } else if (char === '?' || char === '*' || char === '{') {
      // The character before is optional (or repeated zero times): it is not required.
      run = run.slice(0, -1)
      end()
      if (char === '{') while (i < pattern.length && pattern[i] !== '}') i++
    } else if (char === '+') {
      end()
    } else if (char === '.' || char === '^' || char === '$') {
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

interface IgnoreLayer {
  /** The directory the rules belong to, relative to the walk's root ('' = the root). */
  base: string
  rules: Ignore
}

/**
 * The `.gitignore` files in force at one directory of a walk: each layer's patterns are relative to
 * its own directory, deeper layers decide last (a deeper `!pattern` re-includes), as in git.
 */
export class IgnoreStack {
  private constructor(private readonly layers: readonly IgnoreLayer[]) {}

  static empty(): IgnoreStack {
    return new IgnoreStack([])
  }

  /** The stack with `text` (a `.gitignore` or a list of patterns) added for directory `base`. */
  with(base: string, text: string | readonly string[]): IgnoreStack {
    const rules = ignore({ allowRelativePaths: true }).add(typeof text === 'string' ? text : [...text])
    return new IgnoreStack([...this.layers, { base, rules }])
  }

  get size(): number {
    return this.layers.length
  }

  ignores(path: string, directory: boolean): boolean {
    let ignored = false
    for (const { base, rules } of this.layers) {
      const relative = base === '' ? path : path.slice(base.length + 1)
      const verdict = rules.test(directory ? `${relative}/` : relative)
      if (verdict.ignored) ignored = true
      else if (verdict.unignored) ignored = false
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
