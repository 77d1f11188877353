import { type FileSystem, type FsEditRequest, FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { applyEdits } from '@deepseek-ai/dsh-fs/kit'
import { type NearestRegion, nearestRegion } from './nearest'

/**
 * Where a failed `needle` was probably meant to match, for both families: the file's current text
 * is read (on this failure path only) and searched, or, for a step of a multi-edit, the text that
 * the steps `before` it made of it, since that is what the step was matched against. `undefined`
 * when that text cannot be had: the refusal then says only what the provider said.
 */
export async function closestRegion(
  fs: FileSystem, target: FsTarget, needle: string, signal?: AbortSignal, before: readonly FsEditRequest[] = [],
): Promise<{ region: NearestRegion | undefined } | undefined> {
  let text: string
  try {
    text = await fs.readText(target, signal)
    if (before.length > 0) text = applyEdits(text, before, target.displayPath).text
  } catch (failure) {
    if (FsError.is(failure) && !FsError.is(failure, 'FS_ABORTED')) return undefined
    throw failure
  }
  return { region: nearestRegion(text, needle) }
}
