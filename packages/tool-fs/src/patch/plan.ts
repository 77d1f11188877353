import { FsError, fsError, type FsInspection, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { describeEntry } from '@deepseek-ai/dsh-fs/kit'
import { nearestRegion, type PatchHunkFailure, type PatchSectionProblem } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { inspectPath, resolveTarget } from '../paths'
import type { PatchSection } from './parse'
import { type HunkFailure, type ResolvedUpdate, resolveHunks } from './resolve'

/*
 * The first phase of `apply_patch`: every section checked against what is there now, with every
 * guard the single-file tools apply, before a byte is written. Any refusal stops the patch here.
 */

/** What one section will do once everything is checked. `section` is 1-based. */
export type PlannedChange =
  | { kind: 'add'; section: number; target: FsTarget; text: string; lines: number }
  | { kind: 'delete'; section: number; target: FsTarget; version: FsVersion }
  | { kind: 'update'; section: number; target: FsTarget; version: FsVersion; before: string; resolved: ResolvedUpdate; destination?: FsTarget }

/** Why the patch stops before writing: a provider's or policy's error, a problem the tool found, or a hunk with no place. */
export type PlanRefusal =
  | { kind: 'error'; section: PatchSection; index: number; target: FsTarget | undefined; error: FsError }
  | { kind: 'problem'; section: PatchSection; index: number; path: string; problem: PatchSectionProblem }
  | { kind: 'hunk'; failure: PatchHunkFailure }

export class PlanStop extends Error {
  constructor(readonly refusal: PlanRefusal) {
    super('apply_patch refused before writing')
  }
}

/** The largest file an Update reads whole and rewrites. */
export const PATCH_MAX_FILE_BYTES = 32 * 1024 * 1024

/** The most bytes of old text one patch holds at once (every Update's file, read before anything is written). */
export const PATCH_MAX_TOTAL_BYTES = 64 * 1024 * 1024

/**
 * Checks every section in order and returns what each will do. Update and Delete go through
 * `fs/edit-intent` (the policy refuses what the session has not read, or read absent); Add and a
 * move's destination through `fs/write-intent`, and both must be free whatever it answers. An
 * Update's hunks are resolved against the text of the version the guard names.
 */
export async function planPatch(ctx: Context, exec: ToolExecution, sections: readonly PatchSection[]): Promise<PlannedChange[]> {
  const planned: PlannedChange[] = []
  // Which section names each key, so no file is named twice (a move's destination included).
  const named = new Map<string, number>()
  const claim = (target: FsTarget, index: number, section: PatchSection) => {
    const other = named.get(target.targetKey)
    if (other !== undefined) throw new PlanStop({ kind: 'problem', section, index, path: target.displayPath, problem: { kind: 'duplicate', other } })
    named.set(target.targetKey, index)
  }
  let held = 0
  for (const [offset, section] of sections.entries()) {
    const index = offset + 1
    let target: FsTarget | undefined
    try {
      need(ctx, section, index)
      // An Update's file is resolved, stat'ed and read in one step (one request on E2B).
      const inspected = section.kind === 'update' ? await inspectPath(ctx, section.path, exec, Math.min(PATCH_MAX_FILE_BYTES, PATCH_MAX_TOTAL_BYTES - held)) : undefined
      target = inspected?.target ?? await resolveTarget(ctx, section.path, exec)
      held += inspected?.text === undefined ? 0 : inspected.info?.size ?? 0
      claim(target, index, section)
      planned.push(await planSection(ctx, exec, section, index, target, claim, inspected))
    } catch (error) {
      if (error instanceof PlanStop) throw error
      if (FsError.is(error)) throw new PlanStop({ kind: 'error', section, index, target, error })
      throw error
    }
  }
  return planned
}

/** A section the provider cannot carry out is refused before any other look. */
function need(ctx: Context, section: PatchSection, index: number): void {
  const method = section.kind === 'delete' ? 'remove' : section.kind === 'update' && section.moveTo !== undefined ? 'rename' : undefined
  if (method === undefined || ctx.fs.capabilities[method]) return
  throw new PlanStop({ kind: 'problem', section, index, path: section.path, problem: { kind: 'unsupported', method, provider: providerName(ctx) } })
}

/** The provider's class name, for the model and its user ("OlderProvider cannot delete files"). */
function providerName(ctx: Context): string {
  // Past Cordis' service proxy, whose own `constructor` is not the provider's class.
  const name = (Object.getPrototypeOf(ctx.fs) as { constructor?: { name?: unknown } } | null)?.constructor?.name
  return typeof name === 'string' && name.length > 0 ? name : 'in use'
}

async function planSection(
  ctx: Context, exec: ToolExecution, section: PatchSection, index: number, target: FsTarget,
  claim: (target: FsTarget, index: number, section: PatchSection) => void, inspected: FsInspection | undefined,
): Promise<PlannedChange> {
  const path = target.displayPath
  if (section.kind === 'add') {
    // Something there is refused as such first: a policy's answer about replacing it would mislead.
    await mustBeFree(ctx, exec, target, (entry) => ({ kind: 'add-exists', entry }), section, index)
    await ctx.waterfall('fs/write-intent', target, exec, () => undefined)
    const text = section.lines.length === 0 ? '' : `${section.lines.join('\n')}\n`
    return { kind: 'add', section: index, target, text, lines: section.lines.length }
  }
  const expected = await ctx.waterfall('fs/edit-intent', target, exec, () => undefined)
  if (section.kind === 'delete') {
    const info = await ctx.fs.stat(target, exec.signal)
    checkFound(info, expected, path)
    return { kind: 'delete', section: index, target, version: info!.version }
  }
  // The guard is judged on what the read found: a stale file is refused before any hunk is matched.
  const { info } = inspected!
  checkFound(info, expected, path)
  const text = inspected!.text
  if (text === undefined) {
    throw new PlanStop({ kind: 'problem', section, index, path, problem: { kind: 'too-large', size: info!.size ?? 0, limit: PATCH_MAX_FILE_BYTES, total: PATCH_MAX_TOTAL_BYTES } })
  }
  const resolved = resolveHunks(text, section.hunks)
  if ('kind' in resolved) throw new PlanStop({ kind: 'hunk', failure: hunkFailure(section, index, path, text, resolved) })
  let destination: FsTarget | undefined
  if (section.moveTo !== undefined) {
    destination = await resolveTarget(ctx, section.moveTo, exec)
    claim(destination, index, section)
    const where = destination.displayPath
    await mustBeFree(ctx, exec, destination, (entry) => ({ kind: 'move-exists', destination: where, entry }), section, index)
    await ctx.waterfall('fs/write-intent', destination, exec, () => undefined)
  }
  const planned = { kind: 'update' as const, section: index, target, version: info!.version, before: text, resolved }
  return destination === undefined ? planned : { ...planned, destination }
}

/** An Update or Delete needs a regular file at the version the guard names (a stale guard is reported before any match). */
function checkFound(info: Awaited<ReturnType<Context['fs']['stat']>>, expected: { version: FsVersion } | undefined, path: string): void {
  if (info === undefined) throw fsError('FS_STALE_VERSION', { path, gone: true })
  if (expected !== undefined && info.version !== expected.version) throw fsError('FS_STALE_VERSION', { path })
  if (info.type !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path, entry: describeEntry(info) })
}

async function mustBeFree(
  ctx: Context, exec: ToolExecution, target: FsTarget, problem: (entry: string) => PatchSectionProblem, section: PatchSection, index: number,
): Promise<void> {
  const info = await ctx.fs.stat(target, exec.signal)
  if (info !== undefined) throw new PlanStop({ kind: 'problem', section, index, path: target.displayPath, problem: problem(describeEntry(info)) })
}

function hunkFailure(section: PatchSection & { kind: 'update' }, index: number, path: string, text: string, failure: HunkFailure): PatchHunkFailure {
  const hunk = section.hunks[failure.hunk]!
  const base = { path, section: index, hunk: failure.hunk + 1, patchLine: hunk.patchLine }
  switch (failure.kind) {
    case 'ambiguous': return { ...base, why: { kind: 'ambiguous', lines: failure.lines, truncated: failure.truncated } }
    case 'not-at-end': return { ...base, why: { kind: 'not-at-end', lines: failure.lines } }
    case 'anchor-not-found': return { ...base, why: { kind: 'anchor-not-found', anchor: failure.anchor, region: nearestRegion(text, failure.anchor) } }
    case 'not-found': {
      const why: PatchHunkFailure['why'] = failure.earlierLine === undefined
        ? { kind: 'not-found', region: nearestRegion(text, failure.needle) }
        : { kind: 'not-found', region: undefined, earlierLine: failure.earlierLine }
      return { ...base, why }
    }
  }
}
