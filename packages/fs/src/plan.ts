import { Buffer } from 'node:buffer'
import { TEXT_COST_PER_BYTE } from './budget'
import { type SpliceLimits, spliceLiteral } from './edit'
import { formatSize } from './sizes'
import type { SpliceLines } from './lines'
import { FsError, fsError } from './errors'
import { type DecodedText, decodeText } from './decode'
import { prepareOverwrite, type TextStyle } from './style'
import { DEFAULT_MAX_TEXT_BYTES } from './limits'
import { applyEdits } from './multi-edit'
import { encodeText } from './utf8'
import type { FsEditOutcome, FsEditRequest, FsEditStep, FsLineChange } from './types'

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

/**
 * The UTF-8 size of `content`, measured without encoding it, or `FS_TOO_LARGE` above
 * `maxTextBytes`: a write is bounded as an edit's result is, before any byte of it is built.
 */
export function checkWriteSize(content: string, maxTextBytes: number, path?: string): number {
  const bytes = Buffer.byteLength(content)
  if (bytes <= maxTextBytes) return bytes
  throw fsError('FS_TOO_LARGE', {
    path,
    reason: `cannot be written with ${exact(bytes)} of content (${formatSize(bytes)}): the limit for a text file is ${exact(maxTextBytes)}; nothing was changed. `
      + 'Write less, e.g. the start of the file, then add the rest with edits',
  })
}

function exact(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} bytes`
}

/**
 * What a write reserves from the memory budget, in bytes: the new bytes (the caller's string is
 * already there), and the old file's bytes and text when it is read whole to report `before`.
 */
export function writeCost(contentBytes: number, previousBytesRead: number): number {
  return contentBytes + TEXT_COST_PER_BYTE * previousBytesRead
}

/** `planWrite` when the provider has only learned the old file's style (`TextStyleProbe`); `null` = not text. */
export function planStyledWrite(style: TextStyle | null, content: string): PlannedWrite {
  return plannedWrite(prepareOverwrite(style, content), null)
}

/** What `planEdit` makes of one edit: the bytes to publish, the texts and where the edit landed. */
export interface PlannedEdit extends PlannedWrite {
  before: string
  replacements: number
  /** Where the edit landed: what a provider reports as `changes` and `lineTotals`. */
  lines: SpliceLines
}

/**
 * The bytes a provider publishes for a literal edit of `current`; the BOM is kept. A result above
 * `maxTextBytes` fails `FS_TOO_LARGE` before it is built; with `heldBytes` (what the caller holds
 * from the memory budget), one that would cost more throws `MemoryShortfall` before it is built
 * (`planReserved` reserves and plans again).
 */
export function planEdit(current: Uint8Array, edit: FsEditRequest, path?: string, maxTextBytes = DEFAULT_MAX_TEXT_BYTES, heldBytes?: number): PlannedEdit {
  const decoded = decodeText(current, path)
  const limits: SpliceLimits = { maxBytes: maxTextBytes - (decoded.bom ? 3 : 0), textBytes: current.length - (decoded.bom ? 3 : 0) }
  if (heldBytes !== undefined) limits.heldBytes = heldBytes
  const { text, replacements, lines } = spliceLiteral(decoded.text, edit, path, limits)
  // Assigned onto the plan, not spread: a spread would read `bytes` and encode the text.
  return Object.assign(plannedWrite({ text, bom: decoded.bom }, decoded.text), { before: decoded.text, replacements, lines })
}

/** What `planEdits` makes of several edits of one snapshot: as `PlannedEdit`, per step. */
export interface PlannedEdits extends PlannedWrite {
  before: string
  /** Replacements of all the steps. */
  replacements: number
  steps: FsEditStep[]
}

/**
 * `planEdit` for several edits applied in order (`applyEdits`), with the same bounds: every step's
 * result is checked against `maxTextBytes` and `heldBytes` before it is built, and the count of
 * edits and the text they search are capped (`FS_MAX_EDITS`, `FS_MAX_EDIT_WORK`). The BOM is kept.
 */
export function planEdits(current: Uint8Array, edits: readonly FsEditRequest[], path?: string, maxTextBytes = DEFAULT_MAX_TEXT_BYTES, heldBytes?: number): PlannedEdits {
  const decoded = decodeText(current, path)
  const bom = decoded.bom ? 3 : 0
  const applied = applyEdits(decoded.text, edits, path, { maxBytes: maxTextBytes - bom, textBytes: current.length - bom, ...(heldBytes === undefined ? {} : { heldBytes }) })
  const replacements = applied.replacements.reduce((sum, count) => sum + count, 0)
  return Object.assign(plannedWrite({ text: applied.text, bom: decoded.bom }, decoded.text), { before: decoded.text, replacements, steps: applied.steps })
}

/** What a provider reports of a published (or unchanged) plan, but the version: `before` only when told to keep it. */
export function editOutcome(plan: PlannedEdit | PlannedEdits, keepBefore = true): Omit<FsEditOutcome, 'version'> {
  const texts = { before: keepBefore ? plan.before : null, after: plan.after, replacements: plan.replacements }
  return 'steps' in plan ? { ...texts, steps: plan.steps } : { ...texts, ...editLines(plan) }
}

/** The line data of an `FsEditOutcome`, from a plan. */
export function editLines(plan: PlannedEdit): { changes: FsLineChange[]; lineTotals: { added: number; removed: number } } {
  return { changes: plan.lines.changes, lineTotals: { added: plan.lines.added, removed: plan.lines.removed } }
}
