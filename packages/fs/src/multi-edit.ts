import { spliceLiteral } from './edit'
import { FsEditStepError, FsError } from './errors'
import { decodeText } from './decode'
import { encodeText } from './utf8'
import type { FsEditRequest } from './types'

export interface AppliedEdits {
  text: string
  /** Replacements made by each step, in order. */
  replacements: number[]
}

/**
 * Applies literal edits one after another to one text, each to the result of the one before (so a
 * later step may match text an earlier step wrote). The first step that fails stops everything.
 */
export function applyEdits(text: string, edits: readonly FsEditRequest[], path?: string): AppliedEdits {
  if (edits.length === 0) throw new FsError('FS_EDIT_NOT_FOUND', 'no edits were given', { path })
  const replacements: number[] = []
  let current = text
  for (const [index, edit] of edits.entries()) {
    try {
      const spliced = spliceLiteral(current, edit, path)
      current = spliced.text
      replacements.push(spliced.replacements)
    } catch (error) {
      if (!FsError.is(error)) throw error
      const earlier = index === 0 ? '' : ` (after edits[0..${index - 1}] were applied to the text)`
      throw new FsEditStepError(error.code, `edits[${index}]: ${error.message}${earlier}`, index, { cause: error, path })
    }
  }
  return { text: current, replacements }
}

/** The bytes to publish for `applyEdits` on a file's raw bytes; the BOM is kept. */
export function planEdits(current: Uint8Array, edits: readonly FsEditRequest[], path?: string): AppliedEdits & { bytes: Uint8Array; before: string } {
  const decoded = decodeText(current, path)
  const applied = applyEdits(decoded.text, edits, path)
  return { ...applied, bytes: encodeText(applied.text, decoded.bom), before: decoded.text }
}
