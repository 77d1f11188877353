import { type FileSystem, type FsEditRequest, FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { applyEdits } from '@deepseek-ai/dsh-fs/kit'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import { readOptions } from './encoding'
import { type NearestRegion, nearestRegion } from './nearest'

/**
 * Where a failed `needle` was probably meant to match, for both families: the file's current text
 * is read (on this failure path only) and searched, or, for a step of a multi-edit, the text that
 * the steps `before` it made of it, since that is what the step was matched against. `undefined`
 * when that text cannot be had: the refusal then says only what the provider said.
 */
export async function closestRegion(
  fs: FileSystem, target: FsTarget, needle: string, exec: Pick<ToolExecution, 'signal'>, before: readonly FsEditRequest[] = [],
): Promise<Closest | undefined> {
  let original: string
  let text: string
  try {
    original = await fs.readText(target, readOptions(exec))
    text = before.length > 0 ? applyEdits(original, before, target.displayPath).text : original
  } catch (failure) {
    if (FsError.is(failure) && !FsError.is(failure, 'FS_ABORTED')) return undefined
    throw failure
  }
  const changedBy = before.length > 0 && original.includes(needle) ? changedByStep(original, before, needle, target.displayPath) : undefined
  return { region: nearestRegion(text, needle), empty: text.length === 0, ...(changedBy === undefined ? {} : { changedBy }) }
}

export interface Closest {
  region: NearestRegion | undefined
  /** The text matched against is empty: nothing can match, and the remedy is to give it content. */
  empty: boolean
  /** For a step of a multi-edit: the earlier step that changed the text it quotes, and those lines as they now read. */
  changedBy?: ChangedBy
}

export interface ChangedBy {
  step: number
  start: number
  end: number
  lines: string[]
}

/**
 * The earlier step after which `needle`, present in the file, no longer occurs: it quoted text that
 * step changed. Its lines are given as the steps before the failing one left them.
 */
function changedByStep(original: string, before: readonly FsEditRequest[], needle: string, path: string): ChangedBy | undefined {
  const occurrences = (text: string) => text.split(needle).length - 1
  let count = occurrences(original)
  for (let step = 0; step < before.length; step++) {
    const next = occurrences(applyEdits(original, before.slice(0, step + 1), path).text)
    if (next >= count) {
      count = next
      continue
    }
    const applied = applyEdits(original, before, path)
    const change = applied.steps[step]?.changes[0]
    if (change === undefined) return undefined
    const lines = applied.text.split('\n')
    const start = change.line
    const end = Math.max(start, change.line + change.addedLines - 1)
    return { step, start, end, lines: lines.slice(start - 1, end) }
  }
  return undefined
}
