import { ARGUMENT_SYNONYMS } from './arguments'
import type { ForeignName, ToolDefinition } from './types'

/**
 * Names other harnesses give an argument, mapped to the name a dsh tool uses. Each group holds one
 * meaning; a given name is renamed to the member of its group that the chosen tool declares. Only
 * names models actually send belong here (Claude Code, Cursor, Codex, Gemini CLI, OpenHands, MCP
 * filesystem servers); anything else is left as sent, and the tool's own validation names it.
 */
const FOREIGN_ARGUMENTS: readonly (readonly string[])[] = Object.freeze([
  ...ARGUMENT_SYNONYMS,
  ['file_path', 'path', 'filepath', 'filename', 'file', 'target_file', 'absolute_path', 'relative_path'],
  ['content', 'file_text', 'contents', 'text', 'file_content', 'code_edit'],
  ['old_string', 'old_str', 'old_text', 'search', 'find'],
  ['new_string', 'new_str', 'new_text', 'replace', 'replacement'],
  ['offset', 'start_line', 'line_offset'],
  ['limit', 'max_lines', 'line_count', 'lines'],
  ['pattern', 'query', 'regex', 'glob_pattern'],
  ['path', 'directory', 'dir', 'dir_path', 'target_directory'],
])

const squash = (name: string) => name.toLowerCase().replace(/[-_\s]/g, '')

/** What a foreign call maps to: the dsh tool, and the arguments as that tool names them. */
export interface ForeignCall {
  tool: string
  args: Record<string, unknown>
  /** Arguments that were renamed, as `[given, dsh]`. */
  renamed: [string, string][]
}

/**
 * The dsh tool a foreign tool name means, and the call's arguments mapped to its names. Several
 * tools may claim a name (`view` is both `read` and the editor's command): the one that already
 * declares most of the given argument names wins, then the first by name.
 */
export function foreignCall(name: string, given: unknown, definitions: readonly ToolDefinition[]): ForeignCall | undefined {
  const args = typeof given === 'object' && given !== null && !Array.isArray(given) ? given as Record<string, unknown> : {}
  let best: { call: ForeignCall; fit: number } | undefined
  for (const definition of [...definitions].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // A tool's own name in another case or spelling (`Read`, `Multi-Edit`) is one of its foreign names.
    const alias = [definition.name, ...definition.foreignNames ?? []].find((foreign) => squash(nameOf(foreign)) === squash(name))
    if (alias === undefined) continue
    const valid = Object.keys(definition.inputSchema.shape)
    const call = mapped(definition.name, args, valid, typeof alias === 'string' ? {} : alias.args)
    const fit = Object.keys(args).filter((key) => valid.includes(key)).length
    if (best === undefined || fit > best.fit) best = { call, fit }
  }
  return best?.call
}

const nameOf = (foreign: ForeignName) => (typeof foreign === 'string' ? foreign : foreign.name)

function mapped(tool: string, args: Record<string, unknown>, valid: readonly string[], fixed: Record<string, unknown>): ForeignCall {
  const out: Record<string, unknown> = { ...fixed }
  const renamed: [string, string][] = []
  for (const [key, value] of Object.entries(args)) {
    if (valid.includes(key)) {
      if (!(key in fixed)) out[key] = value
      continue
    }
    const meant = FOREIGN_ARGUMENTS.filter((group) => group.includes(key))
      .map((group) => group.find((candidate) => valid.includes(candidate) && !(candidate in out) && !Object.hasOwn(args, candidate)))
      .find((candidate) => candidate !== undefined)
    if (meant === undefined) {
      out[key] = value
      continue
    }
    out[meant] = value
    renamed.push([key, meant])
  }
  return { tool, args: out, renamed }
}
