import { DATA_WORDS, runtimeCode, type RuntimeRefusal, type RuntimeWords } from './refusal'
import type { ToolResult } from './types'

/** Codes minted by the tool runtime itself; tools and hooks may use their own. */
export type ToolErrorCode = 'UNKNOWN_TOOL' | 'INVALID_ARGUMENTS' | 'ABORTED' | (string & {})

const toolMarker = Symbol.for('@deepseek-ai/dsh-tools/ToolError')
// The marker `FsError.is` checks. dsh-tools stays independent of the fs contract (non-fs tools use
// it too), so it recognises an FsError by this registry-wide symbol rather than by importing it.
const fsMarker = Symbol.for('@deepseek-ai/dsh-fs/FsError')

/** A failure with a code, thrown by a tool or a `tools/execute` hook (e.g. a refused permission). */
export class ToolError extends Error {
  override readonly name = 'ToolError'
  readonly [toolMarker] = true

  /** A refusal of the runtime's own, as data: the registry words it with the installed words. */
  readonly refusal?: RuntimeRefusal

  constructor(readonly code: ToolErrorCode, message: string, options?: { cause?: unknown; refusal?: RuntimeRefusal }) {
    super(message, options)
    if (options?.refusal !== undefined) this.refusal = options.refusal
  }

  static is(value: unknown): value is ToolError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[toolMarker] === true
  }
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: false }
}

export function errorResult(message: string, code?: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true, error: code === undefined ? { message } : { code, message } }
}

/** A refusal of the runtime's own, thrown: its message is its data, until the registry words it. */
export function runtimeRefused(refusal: RuntimeRefusal, cause?: unknown): ToolError {
  return new ToolError(runtimeCode(refusal), DATA_WORDS(refusal), { refusal, ...(cause === undefined ? {} : { cause }) })
}

/** Turns anything a tool or hook threw into a result; only typed errors keep a code. A runtime refusal is worded by `words`. */
export function resultFromError(error: unknown, words: RuntimeWords = DATA_WORDS): ToolResult {
  if (ToolError.is(error)) return errorResult(error.refusal === undefined ? error.message : words(error.refusal), error.code)
  if (isFsError(error)) return errorResult(error.message, error.code)
  if (error instanceof Error) return errorResult(error.message || error.name)
  return errorResult(String(error))
}

function isFsError(error: unknown): error is Error & { code: string } {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[fsMarker] === true
    && typeof (error as { code?: unknown }).code === 'string'
}
