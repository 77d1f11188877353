import { FsError, type FsErrorCode, type FsObservation, type FsTarget } from '@deepseek-ai/dsh-fs'
import { readOnlyText, resolveTarget } from '@deepseek-ai/dsh-tool-text'
import { ToolError, type ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { EditHistories } from './history'
import { type Command, render } from './render'
import type { EditorConfig } from './schema'
import type { WindowLimits } from '@deepseek-ai/dsh-tool-text'

/** What every command needs: the context (for `ctx.fs` and the `fs/*` events), limits, undo state. */
export class Editor {
  readonly histories: EditHistories
  readonly window: WindowLimits

  constructor(readonly ctx: Context, readonly config: EditorConfig) {
    this.histories = new EditHistories({ depth: config.undoDepth, maxBytes: config.undoMaxBytes })
    this.window = { maxLines: config.viewLimit, maxLineLength: config.viewMaxLineLength, maxBytes: config.viewMaxBytes }
  }

  /** Relative paths resolve against the session's cwd when it has one, else the provider's (as `read` does). */
  resolve(path: string, exec: ToolExecution): Promise<FsTarget> {
    return resolveTarget(this.ctx, path, exec)
  }

  /** The whole `exec` is the actor: the policy derives its owner from `exec.agent.session`. */
  observe(target: FsTarget, observation: FsObservation, exec: ToolExecution): void {
    this.ctx.emit('fs/observed', target, observation, exec)
  }

  /** A metadata miss is an observation too: recorded before failing, so a later `create` recovers. */
  absent(target: FsTarget, exec: ToolExecution): FsError {
    this.observe(target, { kind: 'absent' }, exec)
    return new FsError('FS_NOT_FOUND', render.notFound(target.displayPath), { path: target.displayPath })
  }
}

export function missing(name: string, command: Command): ToolError {
  return new ToolError('INVALID_ARGUMENTS', render.missingParameter(name, command))
}

export function invalid(message: string): ToolError {
  return new ToolError('INVALID_ARGUMENTS', message)
}

/** The same failure with the model-facing text; the code is kept so hosts can branch on it. */
export function withText(error: FsError, message: string): FsError {
  return new FsError(error.code, message, { cause: error, ...(error.path === undefined ? {} : { path: error.path }) })
}

/**
 * Adds the remedy to the freshness failures every mutating command shares; other failures keep the
 * provider's own message, which already names the path and the reason.
 */
export function explain(error: unknown, command: Command, target: FsTarget): unknown {
  if (!FsError.is(error)) return error
  const path = target.displayPath
  const texts: Partial<Record<FsErrorCode, () => string>> = {
    FS_STALE_VERSION: () => render.stale(command, path),
    FS_NOT_OBSERVED: () => render.notObserved(command, path),
    FS_NOT_FOUND: () => render.notFound(path),
    ...(error.fact === 'read-only' ? { FS_PERMISSION_DENIED: () => `${readOnlyText(path)}.` } : {}),
  }
  const text = texts[error.code]
  return text === undefined ? error : withText(error, text())
}
