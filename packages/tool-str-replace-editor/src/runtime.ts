import { FsError, type FsErrorCode, type FsObservation, type FsTarget } from '@deepseek-ai/dsh-fs'
import {
  type EditorCommand, editorRefused, type EditorStop, type FileRefusal, observe, pathFormRefusal, PdfThreads, resolveTarget, type WindowLimits,
} from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution, ToolRefusal } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { EditHistories } from './history'
import type { EditorConfig } from './schema'

/** A refused command, as data: dsh-tool-text words it. */
export type Refused = ToolRefusal<FileRefusal>

/** What every command needs: the context (for `ctx.fs` and the `fs/*` events), limits, undo state, PDF threads. */
export class Editor {
  readonly histories: EditHistories
  readonly window: WindowLimits
  readonly pdfThreads = new PdfThreads()

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
    observe(this.ctx, target, observation, exec)
  }

  /** A metadata miss is an observation too: recorded before refusing, so a later `create` recovers. */
  absent(target: FsTarget, exec: ToolExecution): Refused {
    this.observe(target, { kind: 'absent' }, exec)
    return editorRefused('FS_NOT_FOUND', { kind: 'not-found', path: target.displayPath })
  }
}

export function missing(name: string, command: EditorCommand): Refused {
  return editorRefused('INVALID_ARGUMENTS', { kind: 'missing-parameter', name, command })
}

export function invalid(stop: EditorStop): Refused {
  return editorRefused('INVALID_ARGUMENTS', stop)
}

/** A refusal with the provider's code and the editor's words for it. */
export function refusedAs(error: FsError, stop: EditorStop): Refused {
  return editorRefused(error.code, stop)
}

/**
 * The remedy of the freshness failures every mutating command shares; other failures keep the
 * provider's own message, which already names the path and the reason.
 */
export function explain(error: FsError, command: EditorCommand, target: FsTarget): Refused {
  const path = target.displayPath
  const stops: Partial<Record<FsErrorCode, EditorStop>> = {
    FS_STALE_VERSION: { kind: 'stale', command, path },
    FS_NOT_OBSERVED: { kind: 'not-observed', command, path },
    FS_NOT_FOUND: { kind: 'not-found', path },
    ...(error.fact === 'read-only' ? { FS_PERMISSION_DENIED: { kind: 'read-only', path } as const } : {}),
  }
  return refusedAs(error, stops[error.code] ?? providerStop(error))
}

/** The provider's account as it is, with what an encoding refusal's remedy needs. */
function providerStop(error: FsError): EditorStop {
  return { kind: 'provider', message: error.message, code: error.code, ...(error.candidates === undefined ? {} : { candidates: error.candidates }) }
}

/**
 * Any other provider failure: its own account, with its code (a command's failure path words the
 * ones it knows); a path in a foreign form, as the path helper refused it.
 */
export function providerRefusal(error: unknown): Refused {
  if (!FsError.is(error)) {
    const form = pathFormRefusal(error)
    if (form === undefined) throw error
    return form
  }
  return refusedAs(error, providerStop(error))
}
