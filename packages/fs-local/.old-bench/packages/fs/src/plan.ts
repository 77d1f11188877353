import { type SpliceLimits, spliceLiteral } from './edit'
import type { SpliceLines } from './lines'
import { FsError } from './errors'
import { type DecodedText, decodeText } from './decode'
import { prepareOverwrite, type TextStyle } from './style'
import { encodeText } from './utf8'
import type { FsEditRequest, FsLineChange } from './types'

export interface PlannedWrite {
  bytes: Uint8Array
  before: string | null
  after: string
  /** Whether `bytes` start with a BOM: `bytes` is `after` encoded behind it, for a provider that encodes as it writes. */
  bom: boolean
}

/** A plan whose bytes are encoded on first use: a provider that writes `after` itself never allocates them. */
function plannedWrite(prepared: DecodedText, before: string | null): PlannedWrite {
  let bytes: Uint8Array | undefined
  return {
    get bytes() {
      return (bytes ??= encodeText(prepared.text, prepared.bom))
    },
    before, after: prepared.text, bom: prepared.bom,
  }
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
  return plannedWrite(prepareOverwrite(decoded, content), decoded?.text ?? null)
}

/** `planWrite` when the provider has only learned the old file's style (`TextStyleProbe`); `null` = not text. */
export function planStyledWrite(style: TextStyle | null, content: string): PlannedWrite {
  return plannedWrite(prepareOverwrite(style, content), null)
}

export interface PlannedEdit extends PlannedWrite {
  before: string
  replacements: number
  /** Where the edit landed: what a provider reports as `changes` and `lineTotals`. */
  lines: SpliceLines
}

/** The largest text `planEdit` builds unless told otherwise (the local provider's default `maxTextBytes`). */
export const DEFAULT_MAX_TEXT_BYTES = 256 * 1024 * 1024

/**
 * The bytes a provider publishes for a literal edit of `current`; the BOM is kept. A result above
 * `maxTextBytes` fails `FS_TOO_LARGE` before it is built.
 */
export function planEdit(current: Uint8Array, edit: FsEditRequest, path?: string, maxTextBytes = DEFAULT_MAX_TEXT_BYTES): PlannedEdit {
  const decoded = decodeText(current, path)
  const limits: SpliceLimits = { maxBytes: maxTextBytes - (decoded.bom ? 3 : 0), textBytes: current.length - (decoded.bom ? 3 : 0) }
  const { text, replacements, lines } = spliceLiteral(decoded.text, edit, path, limits)
  // Assigned onto the plan, not spread: a spread would read `bytes` and encode the text.
  return Object.assign(plannedWrite({ text, bom: decoded.bom }, decoded.text), { before: decoded.text, replacements, lines })
}

/** The line data of an `FsEditOutcome`, from a plan. */
export function editLines(plan: PlannedEdit): { changes: FsLineChange[]; lineTotals: { added: number; removed: number } } {
  return { changes: plan.lines.changes, lineTotals: { added: plan.lines.added, removed: plan.lines.removed } }
}
