import type { ForeignCall } from './foreign'

/**
 * What the runtime refuses before any tool runs, as data. Its sentences are not written here: the
 * model's text is worded in one place (dsh-tool-text), whose words the tool families install on the
 * registry (`ctx.tools.useWords`). dsh-tools cannot import them (dsh-tool-text depends on it), so it
 * takes them.
 */
export type RuntimeRefusal =
  /** No tool has this name; `suggestion` is the closest registered name, if one is close. */
  | { kind: 'unknown-tool'; name: string; suggestion?: string; available: string[] }
  /** A name another harness gives a dsh tool: the dsh tool and the whole call that works. */
  | { kind: 'foreign-tool'; name: string; call: ForeignCall }
  | { kind: 'arguments-not-object'; tool: string; got: ShownValue }
  /** Names the schema does not have: each with the name it likely meant; `retry` when every one has a fix. */
  | { kind: 'unknown-arguments'; tool: string; unknown: UnknownArgument[]; valid: string[]; retry?: RetryArgument[] }
  | { kind: 'invalid-arguments'; tool: string; issues: ArgumentIssue[] }
  | { kind: 'aborted'; tool: string }

/** `meant`: the valid name it likely stands for; `given`: that name is in the call too, so this one is to be left out. */
export type UnknownArgument = { name: string } | { name: string; meant: string; given: boolean }

/** One argument of the corrected call: its name and value as JSON, or `undefined` for a long value elided. */
export interface RetryArgument {
  name: string
  json: string | undefined
}

/** What was wrong with one argument, from the schema's validation. */
export type ArgumentIssue =
  | { kind: 'missing'; name: string; expected: string }
  | { kind: 'type'; name: string; expected: string; got: ShownValue }
  /** Any other rule (a range, a pattern): the schema's own message; `name` is empty for the whole object. */
  | { kind: 'rule'; name: string; message: string }

/** A value as a refusal may show it: its type, and the value itself when it is short. */
export type ShownValue =
  | { type: 'null' | 'array' | 'object' | 'undefined' | 'function' | 'symbol' | 'bigint' }
  | { type: 'string'; value?: string }
  | { type: 'number' | 'boolean'; value: number | boolean }

/** How a refusal reads: installed by the tool families, from dsh-tool-text. */
export type RuntimeWords = (refusal: RuntimeRefusal) => string

/** The text when no family installed its words: the refusal's data, which names what was refused and why. */
export const DATA_WORDS: RuntimeWords = (refusal) => JSON.stringify(refusal)

const CODES = {
  'unknown-tool': 'UNKNOWN_TOOL',
  'foreign-tool': 'UNKNOWN_TOOL',
  'arguments-not-object': 'INVALID_ARGUMENTS',
  'unknown-arguments': 'INVALID_ARGUMENTS',
  'invalid-arguments': 'INVALID_ARGUMENTS',
  aborted: 'ABORTED',
} as const satisfies Record<RuntimeRefusal['kind'], string>

/** The code a host branches on. */
export function runtimeCode(refusal: RuntimeRefusal): (typeof CODES)[RuntimeRefusal['kind']] {
  return CODES[refusal.kind]
}

/** Short strings are shown as they are; longer ones by their type alone. */
const SHOWN_STRING_MAX = 40

export function shownValue(value: unknown): ShownValue {
  if (value === null) return { type: 'null' }
  if (Array.isArray(value)) return { type: 'array' }
  if (typeof value === 'string') return value.length <= SHOWN_STRING_MAX ? { type: 'string', value } : { type: 'string' }
  if (typeof value === 'number' || typeof value === 'boolean') return { type: typeof value as 'number' | 'boolean', value }
  return { type: typeof value as 'object' | 'undefined' | 'function' | 'symbol' | 'bigint' }
}
