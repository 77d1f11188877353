import type { z } from 'zod'
import { runtimeRefused } from './errors'
import { type ArgumentIssue, type RetryArgument, type RuntimeRefusal, shownValue, type UnknownArgument } from './refusal'
import type { ToolDefinition } from './types'

/**
 * Arguments that MCP clients add to every call for their own scheduling, whatever the tool's schema
 * says. They are dropped before validation, never reach `execute`, and are not shown in the tool's
 * JSON Schema. Only names with evidence of a real client belong here: everything else stays strict.
 * - `wait_for_previous`: Gemini CLI adds it to every tool's schema and its prompt tells the model to
 *   set it, to order calls within a turn.
 */
export const CLIENT_CONTROL_ARGUMENTS: readonly string[] = Object.freeze(['wait_for_previous'])

/**
 * Names of one argument in the two tool families models are trained on: the `read`/`write`/`edit`
 * family and the Anthropic text editor family. A model that uses one family's name on a tool of the
 * other is told the name this tool uses, with the corrected call; the call itself is still refused.
 */
export const ARGUMENT_SYNONYMS: readonly (readonly string[])[] = Object.freeze([
  ['file_path', 'path'],
  ['old_string', 'old_str'],
  ['new_string', 'new_str'],
  ['content', 'file_text'],
])

/** Strings longer than this are elided in the corrected call a refusal shows. */
const SHOWN_VALUE_MAX = 60

/**
 * Validates a model's arguments against a tool's schema. Models misspell argument names far more
 * often than they get types wrong, so unknown names are checked first and answered with the name
 * this tool uses (a synonym from the other family, else the closest valid name) and, when every
 * unknown name has one, the corrected call; then zod's issues, each naming the argument and what
 * it expected. A refusal is thrown as data (`ToolError.refusal`), worded by the registry.
 */
export function parseArguments(tool: ToolDefinition, args: unknown): unknown {
  const value = args === undefined ? {} : args
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw runtimeRefused({ kind: 'arguments-not-object', tool: tool.name, got: shownValue(value) })
  }
  const valid = Object.keys(tool.inputSchema.shape)
  const given = withoutControlArguments(value as Record<string, unknown>, valid)
  const unknown = Object.keys(given).filter((key) => !valid.includes(key))
  if (unknown.length > 0) throw runtimeRefused(unknownArguments(tool.name, given, unknown, valid))
  const parsed = tool.inputSchema.safeParse(given)
  if (parsed.success) return parsed.data
  throw runtimeRefused({ kind: 'invalid-arguments', tool: tool.name, issues: parsed.error.issues.map((issue) => issueOf(issue, given)) })
}

/** The arguments without the clients' control arguments, except those the tool declares itself. */
function withoutControlArguments(args: Record<string, unknown>, valid: readonly string[]): Record<string, unknown> {
  const drop = CLIENT_CONTROL_ARGUMENTS.filter((key) => Object.hasOwn(args, key) && !valid.includes(key))
  if (drop.length === 0) return args
  return Object.fromEntries(Object.entries(args).filter(([key]) => !drop.includes(key)))
}

type Fix = { rename: string } | { drop: string }

/** Each unknown name with the name it likely meant, the valid names, and the corrected call when every unknown name has a fix. */
function unknownArguments(tool: string, args: Record<string, unknown>, unknown: readonly string[], valid: readonly string[]): RuntimeRefusal {
  const fixes = new Map<string, Fix>()
  const taken = new Set(Object.keys(args))
  const named: UnknownArgument[] = unknown.map((key) => {
    const meant = synonym(key, valid) ?? closestName(key, valid)
    if (meant === undefined) return { name: key }
    const given = taken.has(meant)
    fixes.set(key, given ? { drop: meant } : { rename: meant })
    taken.add(meant)
    return { name: key, meant, given }
  })
  const refusal: RuntimeRefusal = { kind: 'unknown-arguments', tool, unknown: named, valid: [...valid] }
  return fixes.size === unknown.length ? { ...refusal, retry: correctedCall(args, fixes) } : refusal
}

/** This tool's name for an argument that the other tool family spells `name`. */
function synonym(name: string, valid: readonly string[]): string | undefined {
  const group = ARGUMENT_SYNONYMS.find((names) => names.includes(name))
  return group?.find((candidate) => candidate !== name && valid.includes(candidate))
}

/** The arguments as sent, renamed or dropped by `fixes`, with long values elided so the text stays small. */
function correctedCall(args: Record<string, unknown>, fixes: ReadonlyMap<string, Fix>): RetryArgument[] {
  const retry: RetryArgument[] = []
  for (const [key, value] of Object.entries(args)) {
    const fix = fixes.get(key)
    if (fix !== undefined && 'drop' in fix) continue
    const json = JSON.stringify(value) ?? 'null'
    retry.push({ name: fix === undefined ? key : fix.rename, json: json.length > SHOWN_VALUE_MAX ? undefined : json })
  }
  return retry
}

function issueOf(issue: z.core.$ZodIssue, args: Record<string, unknown>): ArgumentIssue {
  const name = issue.path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('')
  const actual = issue.path.reduce<unknown>((at, part) => (at as Record<PropertyKey, unknown> | undefined)?.[part], args)
  if (issue.code === 'invalid_type') {
    if (actual === undefined && issue.path.length === 1) return { kind: 'missing', name, expected: issue.expected }
    return { kind: 'type', name, expected: issue.expected, got: shownValue(actual) }
  }
  return { kind: 'rule', name, message: issue.message }
}

/**
 * The valid name a misspelling most likely meant: the same name up to case and `_`/`-` (camelCase
 * for snake_case), else the nearest by edit distance if it is close enough to be a typo.
 */
export function closestName(name: string, valid: readonly string[]): string | undefined {
  const squash = (s: string) => s.toLowerCase().replace(/[-_]/g, '')
  const exact = valid.find((candidate) => squash(candidate) === squash(name))
  if (exact !== undefined) return exact
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of valid) {
    const distance = editDistance(squash(name), squash(candidate))
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    row = next
  }
  return row[b.length]!
}
