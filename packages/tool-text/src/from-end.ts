import type { FileSystem, FsTarget } from '@deepseek-ai/dsh-fs'

/**
 * Line positions counted from the end, as Python and `tail -n` count them: -1 is the last line, -3
 * the third from last. A model that asks for the end of a file this way gets it, rather than a
 * validation error that names no next step. Both families read negative positions with this rule.
 */
export function lineFromEnd(position: number, totalLines: number): number {
  return position < 0 ? Math.max(1, totalLines + position + 1) : Math.max(1, position)
}

/** The number of lines `cat -n` would show of a target, by one pass over its bytes (nothing is decoded). */
export async function countTargetLines(fs: FileSystem, target: FsTarget, signal?: AbortSignal): Promise<number> {
  let lines = 0
  let last = -1
  for await (const chunk of fs.streamBytes(target, signal)) {
    if (chunk.length === 0) continue
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++
    last = chunk[chunk.length - 1]!
  }
  return last === -1 || last === 10 ? lines : lines + 1
}
