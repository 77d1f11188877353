import type { z } from 'zod'
import { ToolError } from './errors'
import type { ToolDefinition } from './types'

/**
 * Validates a model's arguments against a tool's schema. Models misspell argument names far more
 * often than they get types wrong, so unknown names are checked first and answered with the closest
 * valid name; zod's issues are then rewritten to name the argument and what it expected.
 */
export function parseArguments(tool: ToolDefinition, args: unknown): unknown {
  const value = args === undefined ? {} : args
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`Arguments for ${tool.name} must be a JSON object, got ${describe(value)}.`)
  }
  const valid = Object.keys(tool.inputSchema.shape)
  const unknown = Object.keys(value).filter((key) => !valid.includes(key))
  if (unknown.length > 0) {
    const lines = unknown.map((key) => {
      const suggestion = closestName(key, valid)
      return `Unknown argument "${key}" for ${tool.name}${suggestion === undefined ? '.' : `; did you mean ${suggestion}?`}`
    })
    lines.push(`Valid arguments: ${valid.join(', ')}.`)
    throw invalid(lines.join('\n'))
  }
  const parsed = tool.inputSchema.safeParse(value)
  if (parsed.success) return parsed.data
  throw invalid(parsed.error.issues.map((issue) => describeIssue(issue, value as Record<string, unknown>)).join('\n'))
}

function invalid(message: string): ToolError {
  return new ToolError('INVALID_ARGUMENTS', message)
}

function describeIssue(issue: z.core.$ZodIssue, args: Record<string, unknown>): string {
  const name = issue.path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('')
  const actual = issue.path.reduce<unknown>((at, part) => (at as Record<PropertyKey, unknown> | undefined)?.[part], args)
  if (issue.code === 'invalid_type') {
    const expected = article(issue.expected)
    if (actual === undefined && issue.path.length === 1) return `Missing required argument "${name}" (expected ${expected}).`
    return `Argument "${name}" must be ${expected}, got ${describe(actual)}.`
  }
  if (name === '') return issue.message
  return `Argument "${name}" is invalid: ${issue.message}.`
}

const ARTICLES: Record<string, string> = {
  string: 'a string', number: 'a number', int: 'an integer', boolean: 'a boolean', array: 'an array',
  object: 'an object', null: 'null', bigint: 'an integer', tuple: 'an array',
}

function article(expected: string): string {
  return ARTICLES[expected] ?? expected
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return value.length <= 40 ? `the string ${JSON.stringify(value)}` : 'a string'
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`
  return typeof value === 'object' ? 'an object' : typeof value
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
