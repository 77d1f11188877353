import { editIndexOf, type FsEditRequest, type FsError, fsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import {
  buildWindow, closestRegion, countLines, type FailureDetail, fsRefused, type FsToolName, inspectTarget, isSymbolicLink, observe, reachOf, readCurrentVersion,
  seenOfWindow, type TextReach, TOUCHED_MAX_LINES, touchedLines,
} from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import type { Config } from './config'
import type { Refused } from './skeleton'

export interface FailedCall {
  tool: FsToolName
  /** Missing when the path did not even resolve. */
  target?: FsTarget | undefined
  exec: ToolExecution
  oldString?: string
  /** A `multi_edit`: its edits, so a failed step is named and matched against what the steps before it made. */
  edits?: readonly FsEditRequest[]
}

/** What a failure path looks at: the call's target, resolved. */
type Resolved = FailedCall & { target: FsTarget }

/**
 * Turns a provider or policy failure into the refusal the model reads, looking further only here,
 * on the failure path (the success paths keep their stat budget: read 1, write 0, edit 0):
 * - a refusal that would send the model to read first, or that names a path outside the root, is
 *   checked against what the target is, since a directory or binary never becomes editable;
 * - a stale refusal shows the current version and records it, when `staleRefusalObserves` is on;
 * - a failed match shows the closest region of the file, and an ambiguous one each line it is on.
 */
export async function refusal(ctx: Context, config: Config, error: FsError, call: FailedCall): Promise<Refused> {
  const { tool, target } = call
  if (target === undefined) return fsRefused(tool, error)
  const path = target.displayPath
  const resolved = { ...call, target }
  // The session's memory says absent, but something is there now: the target's nature comes first,
  // and a file created since is a stale basis, never "does not exist".
  const there = error.code === 'FS_NOT_FOUND' && tool !== 'read' ? await inspectTarget(ctx.fs, target, call.exec.signal, reachOf(config)) : undefined
  if (there !== undefined && there.kind !== 'absent') {
    if (there.kind !== 'text') return fsRefused(tool, error, { kind: 'not-a-file', nature: there }, path)
    const appeared = fsError('FS_STALE_VERSION', { path, reason: 'has been created since this session found it absent' })
    return fsRefused(tool, appeared, await detailOf(ctx, config, appeared, resolved), path)
  }
  return fsRefused(tool, error, await detailOf(ctx, config, error, resolved), path)
}

async function detailOf(ctx: Context, config: Config, error: FsError, call: Resolved): Promise<FailureDetail | undefined> {
  if (error.code === 'FS_NOT_SEEN') return { kind: 'not-seen', seen: error.seen }
  // An undecided encoding (`FS_NOT_TEXT` with `candidates`) is said as such, never inspected into "binary".
  const inspects = error.code === 'FS_NOT_OBSERVED' || error.code === 'FS_NOT_REGULAR_FILE' || (error.code === 'FS_NOT_TEXT' && error.candidates === undefined)
    || (error.code === 'FS_OUTSIDE_ROOT' && call.tool !== 'read')
  if (inspects) return natureDetail(ctx, error, call, reachOf(config))
  if (error.code === 'FS_STALE_VERSION' && config.staleRefusalObserves && call.tool !== 'read') return staleDetail(ctx, config, call)
  return matchDetail(ctx, config, error, call)
}

/** What the target is, when that decides the refusal before any read-first rule. */
async function natureDetail(ctx: Context, error: FsError, { tool, target, exec }: Resolved, reach: TextReach): Promise<FailureDetail | undefined> {
  const nature = await inspectTarget(ctx.fs, target, exec.signal, reach)
  const unread = nature?.kind === 'text' && error.code === 'FS_NOT_OBSERVED'
  // Too large for any change: said by its size, before the read-first rule would send the model to read it for nothing.
  if (unread && tool !== 'read' && (nature.size ?? 0) > ctx.fs.maxTextBytes) return { kind: 'too-large', size: nature.size!, limit: ctx.fs.maxTextBytes }
  // A text file behind a link the session never read through: most often a file swapped for a link since the read.
  if (unread && await isSymbolicLink(ctx.fs, target, exec.signal)) return { kind: 'linked' }
  if (nature === undefined || nature.kind === 'text') return undefined
  if (nature.kind === 'absent') return error.code === 'FS_NOT_OBSERVED' && tool === 'edit' ? { kind: 'missing' } : undefined
  // An image or PDF becomes replaceable by being read (`readMedia`): the read-first refusal stands.
  if (nature.kind === 'media' && error.code === 'FS_NOT_OBSERVED' && tool === 'write') return undefined
  return { kind: 'not-a-file', nature }
}

/** Stale: the current version shown and recorded as read (or the file recorded absent), so the retry can succeed. */
async function staleDetail(ctx: Context, config: Config, call: Resolved): Promise<FailureDetail | undefined> {
  const { target, exec } = call
  const current = await readCurrentVersion(ctx.fs, target, exec)
  if (current.kind === 'absent') {
    observe(ctx, target, { kind: 'absent' }, exec)
    return { kind: 'stale-absent', maxLineLength: config.readMaxLineLength }
  }
  if (current.kind === 'unsettled') return undefined
  const shown = await staleRegion(current.text, call.oldString ?? call.edits?.[0]?.oldString, config)
  observe(ctx, target, { kind: 'present', version: current.version, seen: seenOfWindow(shown.lines, shown.totalLines) }, exec)
  return { kind: 'stale-shown', ...shown, maxLineLength: config.readMaxLineLength }
}

/** A failed match: each line an ambiguous old_string is on, or the closest region to one that matched nothing. */
async function matchDetail(ctx: Context, config: Config, error: FsError, call: Resolved): Promise<FailureDetail | undefined> {
  const step = editIndexOf(error)
  const oldString = step === undefined ? call.oldString : call.edits?.[step]?.oldString
  const path = call.target.displayPath
  const named = <F extends object>(failure: F) => step === undefined ? failure : { ...failure, step }
  if (error.code === 'FS_AMBIGUOUS_EDIT' && oldString !== undefined) {
    const failure = { kind: 'ambiguous' as const, path, needle: oldString, occurrences: error.occurrences }
    return { kind: 'match', failure: named(failure), maxLineLength: config.readMaxLineLength }
  }
  if (error.code !== 'FS_EDIT_NOT_FOUND' || oldString === undefined || oldString.length === 0) return undefined
  // A step of a multi_edit was matched against the text the steps before it made.
  const before = step === undefined ? [] : call.edits!.slice(0, step)
  const closest = await closestRegion(ctx.fs, call.target, oldString, call.exec, before)
  if (closest === undefined) return undefined
  const failure = {
    kind: 'no-match' as const, path, needle: oldString, region: closest.region,
    ...(closest.empty ? { empty: true } : {}), ...(closest.changedBy === undefined ? {} : { changedBy: closest.changedBy }),
  }
  return { kind: 'match', failure: named(failure), maxLineLength: config.readMaxLineLength }
}

/** The part of the current text the refused call touches: where old_string is (or nearly is), else the top. */
async function staleRegion(text: string, oldString: string | undefined, config: Config) {
  const totalLines = countLines(text)
  const touched = oldString === undefined ? undefined : touchedLines(text, { needle: oldString })
  // A write touches the whole file: as much of it as a read shows.
  const span = touched?.span ?? { start: 1, end: touched === undefined ? config.readLimit : TOUCHED_MAX_LINES }
  const limit = Math.min(config.readLimit, span.end - span.start + 1)
  const window = await buildWindow([text], { offset: span.start, limit, maxLineLength: config.readMaxLineLength, maxBytes: config.readMaxBytes })
  return { lines: window.lines, totalLines, where: touched?.where === 'match' || touched?.where === 'nearest' ? touched.where : 'start' as const }
}
