import { FsError, type FsObservation, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { seenEverything } from '@deepseek-ai/dsh-fs/kit'
import type { LineSpan, PatchFileReport, SnippetOptions } from '@deepseek-ai/dsh-tool-text'
import { countLines, decodingOf, observe, snippetLines } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import type { PlannedChange } from './plan'

/*
 * The second phase of `apply_patch`: the planned changes published one file at a time, each with
 * the provider's own guard (a guarded create, a version-checked replace, remove or rename), so a
 * change made by anyone since the plan is refused, never overwritten. Every success is recorded
 * as an observation at once, so what the session knows follows what was done even if a later file fails.
 */

export type Published = { ok: true; files: PatchFileReport[] } | {
  ok: false
  changed: PatchFileReport[]
  failed: { path: string; error: unknown; uncertain: boolean }
  untouched: string[]
}

export async function publishPatch(ctx: Context, exec: ToolExecution, planned: readonly PlannedChange[], snippet: SnippetOptions): Promise<Published> {
  const files: PatchFileReport[] = []
  for (const [index, change] of planned.entries()) {
    // A move that succeeded before its content failed is a change of its own.
    const moved: { to?: FsTarget } = {}
    try {
      files.push(await publishOne(ctx, exec, change, snippet, moved))
    } catch (error) {
      const changed = moved.to === undefined ? files : [...files, { kind: 'moved-only' as const, path: change.target.displayPath, movedTo: moved.to.displayPath }]
      const failedPath = moved.to?.displayPath ?? change.target.displayPath
      return { ok: false, changed, failed: { path: failedPath, error, uncertain: uncertain(error) }, untouched: planned.slice(index + 1).map(displayOf) }
    }
  }
  return { ok: true, files }
}

/** What a publication needs besides the change: where, the session's observations, and the snippet rule. */
interface Publishing {
  ctx: Context
  exec: ToolExecution
  snippet: SnippetOptions
  observe(target: FsTarget, observation: FsObservation): void
}

async function publishOne(ctx: Context, exec: ToolExecution, change: PlannedChange, snippet: SnippetOptions, moved: { to?: FsTarget }): Promise<PatchFileReport> {
  const { signal } = exec
  const run: Publishing = { ctx, exec, snippet, observe: (target, observation) => observe(ctx, target, observation, exec) }
  switch (change.kind) {
    case 'add': {
      const outcome = await ctx.fs.writeText(change.target, change.text, { expected: { kind: 'createIfAbsent' }, signal, decoding: decodingOf(exec) })
      // The model wrote every line of it.
      run.observe(change.target, { kind: 'present', version: outcome.version, seen: seenEverything(countLines(change.text)) })
      return { kind: 'added', path: change.target.displayPath, lines: change.lines }
    }
    case 'delete': {
      await ctx.fs.remove!(change.target, { expected: { version: change.version }, signal })
      run.observe(change.target, { kind: 'absent' })
      return { kind: 'deleted', path: change.target.displayPath }
    }
    case 'update': return publishUpdate(run, change, moved)
  }
}

/** A file at a new place or version the session saw nothing of (yet): present, its lines unseen. */
const present = (version: FsVersion, text: string): Extract<FsObservation, { kind: 'present' }> => ({ kind: 'present', version, seen: { ranges: [], total: countLines(text) } })

async function publishUpdate(run: Publishing, change: Extract<PlannedChange, { kind: 'update' }>, moved: { to?: FsTarget }): Promise<PatchFileReport> {
  const { ctx, exec } = run
  const { signal } = exec
  const { target, resolved, destination } = change
  let at = target
  let version = change.version
  // Moved first: a destination that someone took meanwhile then stops the patch before any byte of this file changed.
  if (destination !== undefined) {
    version = (await ctx.fs.rename!(target, destination, { expected: { version }, signal })).version
    run.observe(target, { kind: 'absent' })
    run.observe(destination, present(version, change.before))
    moved.to = destination
    at = destination
  }
  if (resolved.text !== change.before) {
    const from = version
    version = (await ctx.fs.writeText(at, resolved.text, { expected: { kind: 'replaceIfVersion', version }, signal, decoding: decodingOf(exec) })).version
    // What was seen of the version the hunks were resolved against carries over, moved by the hunks.
    run.observe(at, { ...present(version, resolved.text), from: { version: from, changes: resolved.changes } })
  }
  const spans: LineSpan[] = resolved.text === change.before ? [] : resolved.changes.map((region) => ({ start: region.line, end: region.line + region.addedLines - 1 }))
  const report: PatchFileReport = {
    kind: 'updated', path: target.displayPath, spans, counts: { added: resolved.added, removed: resolved.removed },
    snippet: spans.length === 0 ? [] : await snippetLines(resolved.text, spans[0], run.snippet),
  }
  return destination === undefined ? report : { ...report, movedTo: destination.displayPath }
}

/**
 * Whether a failed publication may still have happened: after an I/O error (a lost connection, a
 * failed fsync) nobody can tell whether the command or rename ran. A refusal (stale, exists,
 * denied) changed nothing, nor did an abort (honoured only before a publication starts).
 */
function uncertain(error: unknown): boolean {
  return !FsError.is(error) || error.code === 'FS_IO_ERROR'
}

function displayOf(change: PlannedChange): string {
  return change.kind === 'update' && change.destination !== undefined
    ? `${change.target.displayPath} (to be moved to ${change.destination.displayPath})`
    : change.target.displayPath
}
