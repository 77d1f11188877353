import type { FsOccurrences } from '@deepseek-ai/dsh-fs'
import type { ChangedBy } from './closest'
import type { NearestRegion } from './nearest'
import type { LineSpan } from './snippet'
import type { WindowLine } from './window'

/*
 * What a mutating call did or why its match failed, as data. The tools of both families return one
 * of these from their work and `renderReport` / `renderMatchFailure` turn it into the text the model
 * reads, so a fix of a span, a snippet or a remedy lands in both families at once.
 */

/** The family whose words a text uses: `dsh-tool-fs` (`read`, `edit`, old_string) or the editor (`view`, `str_replace`, old_str). */
export type Family = 'fs' | 'editor'

/** Where a change landed, in lines of the new text, and the numbered lines around it now. */
export interface LandedChange {
  span: LineSpan
  snippet: WindowLine[]
}

/** One literal replacement (`edit`, `str_replace`). */
export interface EditedReport {
  kind: 'edited'
  path: string
  replacements: number
  /** Lines added and removed over every change; missing when the provider reported no line data and no old text. */
  counts?: { added: number; removed: number }
  /** The first change; missing when no line changed (line endings only) or nothing is known of where. */
  first?: LandedChange
}

/** Lines added by the editor's `insert`. */
export interface InsertedReport {
  kind: 'inserted'
  path: string
  first: LandedChange
}

/** One edit of a `multi_edit`, and where its replacements landed in the final text. */
export interface StepReport {
  /** 0-based position in `edits`. */
  index: number
  replacements: number
  /** Every region the step changed, in lines of the final text (empty: no line changed). */
  spans: LineSpan[]
  /** Numbered lines around its first region; empty past the steps a result shows in full. */
  snippet: WindowLine[]
}

/** A `multi_edit`: per edit when the provider reports steps, else the one region between the lines kept at both ends. */
export interface MultiEditedReport {
  kind: 'multi-edited'
  path: string
  edits: number
  replacements: number
  steps?: StepReport[]
  merged?: { span: LineSpan; removed: number; snippet: WindowLine[] }
}

/** A whole-file write (`write`, the editor's `create`). */
export interface WrittenReport {
  kind: 'written'
  path: string
  operation: 'create' | 'update'
  /** Lines of the new text. */
  lines: number
  /**
   * An overwrite's one region between the lines it kept at both ends: its lines added and removed,
   * and where it starts. Missing when the provider returned no old text; `first` missing: unchanged.
   */
  counts?: { added: number; removed: number }
  first?: LandedChange
}

export type MutationReport = EditedReport | InsertedReport | MultiEditedReport | WrittenReport

/** A failed literal match. `step` names the edit of a `multi_edit` that failed. */
export type MatchFailure =
  | { kind: 'ambiguous'; path: string; needle: string; occurrences: FsOccurrences | undefined; step?: number }
  /** `region` is missing when nothing in the text resembles the needle (or the text could not be searched). */
  | { kind: 'no-match'; path: string; needle: string; region: NearestRegion | undefined; step?: number; empty?: boolean; changedBy?: ChangedBy }

/** The call a stale refusal refused. */
export type StaleCall = 'write' | 'edit' | 'str_replace' | 'insert'

/** A refusal as stale that looked at the current version (the `staleRefusalObserves` option). */
export type StaleRefusal =
  /** The file is gone; recorded as absent. */
  | { kind: 'stale-absent'; path: string; call: StaleCall }
  /**
   * The current version's text around the place the call touched, recorded as read. `reason` is the
   * provider's sentence (the fs family quotes it); `totalLines` and `where` say how much is shown.
   */
  | { kind: 'stale-shown'; path: string; call: StaleCall; reason: string; lines: WindowLine[]; totalLines: number; where: 'match' | 'nearest' | 'line' | 'start' }
