import type { RE2JS } from 're2js'
import { type FsError, fsError } from './errors'
import { linearEngine } from './linear'

/*
 * Search patterns run on RE2 (the re2js port), whose matching time grows linearly with the line
 * and the pattern, never exponentially: JavaScript's backtracking engine took 30 s for `(a+)+$` on
 * 27 bytes and 20 s for `import.*from` over one 300 KB line, with the event loop stopped the whole
 * time. The syntax is JavaScript's minus what needs backtracking (lookaround, backreferences).
 */

/** The longest pattern a search takes: the engine's work per byte grows with the pattern. */
export const MAX_PATTERN_LENGTH = 4096

/**
 * Lines longer than this are not given to the regular expression (a plain-text pattern still
 * searches them): the worst linear cost measured for one such line is a few hundred ms, the
 * longest the event loop may wait for a single match. Counted in `skipped.longLines`.
 */
export const MAX_REGEX_LINE = 1024 * 1024

/** A compiled search pattern: does one line (without its ending) contain a match? */
export interface LineMatcher {
  test(line: string): boolean
}

function invalid(pattern: string, why: string): FsError {
  const shown = pattern.length > 200 ? `${JSON.stringify(pattern.slice(0, 200))}…` : JSON.stringify(pattern)
  return fsError('FS_INVALID_PATTERN', { reason: `invalid regular expression ${shown}: ${why}` })
}

/** What RE2 cannot do, said the way a JavaScript user knows it (escapes and classes are skipped). */
function unsupported(pattern: string): string | undefined {
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === '\\') {
      const next = pattern[++i]
      if (!inClass && (next !== undefined && next >= '1' && next <= '9' || next === 'k' && pattern[i + 1] === '<')) {
        return 'backreferences (\\1, \\k<name>) are not supported'
      }
    } else if (inClass) {
      if (char === ']') inClass = false
    } else if (char === '[') {
      inClass = true
      if (pattern[i + 1] === '^') i++
      if (pattern[i + 1] === ']') i++
    } else if (char === '(' && pattern[i + 1] === '?' && (/^[=!]/.test(pattern.slice(i + 2)) || /^<[=!]/.test(pattern.slice(i + 2)))) {
      return 'lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported'
    }
  }
  return undefined
}

/**
 * JavaScript escapes RE2 spells differently: `\uXXXX` and `\u{X…}` become `\x{…}`, `\cX` its
 * control character, `\0` a NUL, `\/` a slash. Everything else is passed as it is.
 */
function toRe2(pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char !== '\\') {
      out += char
      continue
    }
    const next = pattern[i + 1]
    const rest = pattern.slice(i + 2)
    const four = /^[0-9a-fA-F]{4}/.exec(rest)
    const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(rest)
    if (next === 'u' && four !== null) {
      out += `\\x{${four[0]}}`
      i += 5
    } else if (next === 'u' && braced !== null) {
      out += `\\x{${braced[1]}}`
      i += 1 + braced[0].length
    } else if (next === 'c' && /^[a-zA-Z]/.test(rest)) {
      out += `\\x{${(rest.charCodeAt(0) % 32).toString(16)}}`
      i += 2
    } else if (next === '0' && !/^[0-9]/.test(rest)) {
      out += '\\x{0}'
      i += 1
    } else {
      out += char + (next ?? '')
      i += 1
    }
  }
  return out
}

/**
 * A search pattern compiled for linear-time matching, or `FS_INVALID_PATTERN` quoting it and the
 * reason (including what RE2 leaves out of JavaScript's syntax, and the length limit).
 */
export function compileRegex(pattern: string, caseInsensitive = false): LineMatcher {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw invalid(pattern, `it is ${pattern.length} characters long, over the limit of ${MAX_PATTERN_LENGTH}`)
  }
  const missing = unsupported(pattern)
  if (missing !== undefined) throw invalid(pattern, `${missing} (patterns run on a linear-time engine)`)
  let compiled: RE2JS
  const source = toRe2(pattern)
  try {
    const engine = linearEngine()
    compiled = engine.compile(source, caseInsensitive ? engine.CASE_INSENSITIVE : 0)
  } catch (error) {
    // RE2 names the offending part; when that is the whole pattern, the quote before says it.
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '').replace(`: \`${source}\``, '') : String(error)
    throw invalid(pattern, reason)
  }
  return { test: (line) => compiled.test(line) }
}
