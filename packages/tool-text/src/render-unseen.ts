import type { FsSeenLines } from '@deepseek-ai/dsh-fs'
import { firstUnseen, seenLineCount } from '@deepseek-ai/dsh-fs/kit'
import { plural } from './render'

/** Ranges named one by one before the rest is counted. */
const NAMED_RANGES = 4

/**
 * Why a whole-file replacement was refused under the policy's seen rule (`FS_NOT_SEEN`), from the
 * data the policy attached: what the session was shown of the version, its line count when known,
 * and the two calls that work: `edit` for a part (it quotes what it changes, so needs nothing more)
 * or `read` from the first character not shown yet and on, answer after answer, to the end of the
 * file (one read stops at its line and byte limits, so one call is not always enough), after which
 * the replacement may be retried.
 */
export function renderNotSeen(path: string, seen: FsSeenLines | undefined): string {
  const count = seenLineCount(seen)
  const total = seen?.total
  const shown = count === 0 ? 'none of its lines whole' : `${rangeWords(seen!.ranges)} (${count}${total === undefined ? '' : ` of ${total}`} lines)`
  const size = total === undefined ? '' : `, which has ${plural(total, 'line')}`
  const next = firstUnseen(seen) ?? { line: 1 }
  const call = next.column === undefined
    ? `offset=${next.line}`
    : `offset=${next.line}, limit=1, column=${next.column}`
  const where = next.column === undefined
    ? `line ${next.line} is the first line not shown yet`
    : `line ${next.line} was shown up to character ${next.column - 1}`
  return `Nothing was written: the dsh \`write\` tool replaces every line of ${path}${size}, and this session has been shown ${shown}. `
    + `To change part of the file, call the dsh \`edit\` tool with old_string quoting the text to change. `
    + `To replace the whole file, first call the dsh \`read\` tool with ${call} (${where}); one read stops at its line and size limits, `
    + 'so call it again with the offset each answer ends with until one shows the end of the file, then retry.'
}

/** `lines 10-14`, `lines 1-9, 11-20 and 30-40`, `line 3`, or the first few ranges and how many more. */
function rangeWords(ranges: ReadonlyArray<readonly [number, number]>): string {
  const named = ranges.slice(0, NAMED_RANGES).map(([first, last]) => first === last ? `${first}` : `${first}-${last}`)
  const rest = ranges.length - named.length
  const single = ranges.length === 1 && ranges[0]![0] === ranges[0]![1]
  const words = rest > 0 ? `${named.join(', ')} and ${plural(rest, 'more range')}` : named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`
  return `${single ? 'line' : 'lines'} ${words}`
}
