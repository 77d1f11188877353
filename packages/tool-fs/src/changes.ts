import { normalizeLineEndings } from '@deepseek-ai/dsh-fs'
import { diffLines } from 'diff'

/** The number of lines `cat -n` would show: a final line feed does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0
  let count = 1
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++
  return text.endsWith('\n') ? count - 1 : count
}

export interface LineChanges {
  added: number
  removed: number
  /** The first changed region, in 1-based lines of the new text (empty when lines were only removed). */
  first?: { start: number; end: number }
}

/**
 * Lines added and removed between two texts. Line endings are compared normalised: a CRLF file
 * rewritten by the provider in CRLF must not count every line as changed.
 */
export function lineChanges(before: string, after: string): LineChanges {
  let added = 0
  let removed = 0
  let line = 1
  let first: LineChanges['first']
  let inFirst = false
  for (const part of diffLines(normalizeLineEndings(before), normalizeLineEndings(after))) {
    const count = part.count ?? countLines(part.value)
    if (part.added || part.removed) {
      if (first === undefined) {
        first = { start: line, end: line - 1 }
        inFirst = true
      }
      if (part.added) {
        added += count
        if (inFirst) first.end += count
        line += count
      } else {
        removed += count
      }
    } else {
      inFirst = false
      line += count
    }
  }
  return first === undefined ? { added, removed } : { added, removed, first }
}
