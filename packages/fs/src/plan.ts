import { spliceLiteral } from './edit'
import { FsError } from './errors'
import { type DecodedText, decodeText, encodeText, prepareOverwrite, type TextStyle } from './text'
import type { FsEditRequest } from './types'

export interface PlannedWrite {
  bytes: Uint8Array
  before: string | null
  after: string
}

/**
 * The bytes a provider publishes when `content` replaces `previous` (null for a new file).
 * A previous file that is not text is replaced as given and reports no `before`.
 */
export function planWrite(previous: Uint8Array | null, content: string, path?: string): PlannedWrite {
  let decoded: DecodedText | null = null
  if (previous !== null) {
    try {
      decoded = decodeText(previous, path)
    } catch (error) {
      if (!FsError.is(error, 'FS_NOT_TEXT')) throw error
    }
  }
  const prepared = prepareOverwrite(decoded, content)
  return { bytes: encodeText(prepared.text, prepared.bom), before: decoded?.text ?? null, after: prepared.text }
}

/** `planWrite` when the provider has only learned the old file's style (`TextStyleProbe`); `null` = not text. */
export function planStyledWrite(style: TextStyle | null, content: string): PlannedWrite {
  const prepared = prepareOverwrite(style, content)
  return { bytes: encodeText(prepared.text, prepared.bom), before: null, after: prepared.text }
}

export interface PlannedEdit extends PlannedWrite {
  before: string
  replacements: number
}

/** The bytes a provider publishes for a literal edit of `current`; the BOM is kept. */
export function planEdit(current: Uint8Array, edit: FsEditRequest, path?: string): PlannedEdit {
  const decoded = decodeText(current, path)
  const { text, replacements } = spliceLiteral(decoded.text, edit, path)
  return { bytes: encodeText(text, decoded.bom), before: decoded.text, after: text, replacements }
}
