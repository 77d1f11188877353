import { z } from 'zod'
import type { ToolInputSchema } from './types'

/**
 * The JSON Schema a model or MCP client sees. It describes the *input* side (fields with defaults
 * are optional) and always forbids extra properties, which `parseArguments` enforces.
 */
export function toInputSchema(schema: ToolInputSchema): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  return { ...json, additionalProperties: false }
}
