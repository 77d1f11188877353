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

  constructor(readonly code: ToolErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
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

/** Turns anything a tool or hook threw into a result; only typed errors keep a code. */
export function resultFromError(error: unknown): ToolResult {
  if (ToolError.is(error)) return errorResult(error.message, error.code)
  if (isFsError(error)) return errorResult(error.message, error.code)
  if (error instanceof Error) return errorResult(error.message || error.name)
  return errorResult(String(error))
}

function isFsError(error: unknown): error is Error & { code: string } {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[fsMarker] === true
    && typeof (error as { code?: unknown }).code === 'string'
}
