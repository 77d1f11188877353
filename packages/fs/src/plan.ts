import { Buffer } from 'node:buffer'
import { TEXT_COST_PER_BYTE } from './budget'
import { type SpliceLimits, spliceLiteral } from './edit'
import { formatSize } from './sizes'
import type { SpliceLines } from './lines'
import { FsError, fsError } from './errors'
import { type DecodedText, decodeText } from './decode'
import type { FsTextDecoding } from './decoding'
import { prepareOverwrite, type TextStyle } from './style'
import { DEFAULT_MAX_TEXT_BYTES } from './limits'
import { applyEdits } from './multi-edit'
import { encodeText } from './utf8'
import { encodeExactly, type FsTextEncoding } from './encodings'
import type { FsEditOutcome, FsEditRequest, FsEditStep, FsLineChange } from './types'

/** What `planWrite` makes: the bytes to publish, the old and new texts, the encoding when not UTF-8. */
export interface PlannedWrite {
  bytes: Uint8Array
  before: string | null
  after: string
  /** Whether `bytes` start with a BOM: `bytes` is `after` encoded behind it, for a provider that encodes as it writes. */
  bom: boolean
  /**
   * Set when the file is not UTF-8: `bytes` are then already encoded (a character the encoding
   * cannot hold failed `FS_NOT_ENCODABLE` while planning) and a provider must write them as they are.
   */
  encoding?: FsTextEncoding
}

/**
 * A plan whose bytes are encoded on first use: a provider that writes `after` itself never allocates
 * them. A file in another encoding is encoded at once, so that a refusal comes before anything is staged.
 */
function plannedWrite(prepared: DecodedText, before: string | null, path?: string): PlannedWrite {
  const { encoding } = prepared
  if (encoding !== undefined) {
    return { bytes: encodeIn(prepared, encoding, path), before, after: prepared.text, bom: prepared.bom, encoding }
  }
  let bytes: Uint8Array | undefined
  return {
    get bytes() {
      return (bytes ??= encodeText(prepared.text, prepared.bom))
    },
    before, after: prepared.text, bom: prepared.bom,
  }
}

/** A decoded text back in its legacy encoding; a BOM character in front of an 8-bit one stays a character. */
function encodeIn(prepared: DecodedText, encoding: FsTextEncoding, path: string | undefined): Uint8Array {
  const utf16 = encoding === 'utf-16le' || encoding === 'utf-16be'
  const text = prepared.bom && !utf16 ? `\ufeff${prepared.text}` : prepared.text
  return encodeExactly(text, encoding, utf16, path)
}

/**
 * The bytes a provider publishes when `content` replaces `previous` (null for a new file).
 * A previous file that is not text is replaced as given and reports no `before`; one in a legacy
 * encoding `decoding` decides is written back in it.
 */
export function planWrite(previous: Uint8Array | null, content: string, path?: string, decoding?: FsTextDecoding): PlannedWrite {
  let decoded: DecodedText | null = null
  if (previous !== null) {
    try {
      decoded = decodeText(previous, path, decoding)
    } catch (error) {
      if (!FsError.is(error, 'FS_NOT_TEXT')) throw error
    }
  }
  return plannedWrite(prepareOverwrite(decoded, content), decoded?.text ?? null, path)
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
 * (`planReserved` reserves and plans again). A file in a legacy encoding `decoding` decides keeps it.
 */
export function planEdit(
  current: Uint8Array, edit: FsEditRequest, path?: string, maxTextBytes = DEFAULT_MAX_TEXT_BYTES, heldBytes?: number, decoding?: FsTextDecoding,
): PlannedEdit {
  const decoded = decodeText(current, path, decoding)
  const limits: SpliceLimits = { maxBytes: maxTextBytes - (decoded.bom ? 3 : 0), ...utf8Size(decoded, current) }
  if (heldBytes !== undefined) limits.heldBytes = heldBytes
  const { text, replacements, lines } = spliceLiteral(decoded.text, edit, path, limits)
  // Assigned onto the plan, not spread: a spread would read `bytes` and encode the text.
  return Object.assign(plannedWrite(sameEncoding(decoded, text), decoded.text, path), { before: decoded.text, replacements, lines })
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
export function planEdits(
  current: Uint8Array, edits: readonly FsEditRequest[], path?: string, maxTextBytes = DEFAULT_MAX_TEXT_BYTES, heldBytes?: number, decoding?: FsTextDecoding,
): PlannedEdits {
  const decoded = decodeText(current, path, decoding)
  const bom = decoded.bom ? 3 : 0
  const applied = applyEdits(decoded.text, edits, path, { maxBytes: maxTextBytes - bom, ...utf8Size(decoded, current), ...(heldBytes === undefined ? {} : { heldBytes }) })
  const replacements = applied.replacements.reduce((sum, count) => sum + count, 0)
  return Object.assign(plannedWrite(sameEncoding(decoded, applied.text), decoded.text, path), { before: decoded.text, replacements, steps: applied.steps })
}

/**
 * The UTF-8 size of a decoded text when the file's own size gives it (UTF-8 behind an optional BOM).
 * A file in another encoding has its text measured: the size bounds apply to its text as UTF-8.
 */
function utf8Size(decoded: DecodedText, current: Uint8Array): { textBytes?: number } {
  return decoded.encoding === undefined ? { textBytes: current.length - (decoded.bom ? 3 : 0) } : {}
}

/** `text` to be written as `decoded` was: same BOM, same encoding. */
function sameEncoding(decoded: DecodedText, text: string): DecodedText {
  return decoded.encoding === undefined ? { text, bom: decoded.bom } : { text, bom: decoded.bom, encoding: decoded.encoding }
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
