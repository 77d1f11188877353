import { describe, expect, it } from 'vitest'
import { bareToolMentions } from '../src/index'

const names = ['read', 'write', 'edit', 'str_replace_editor']

describe('bare tool mentions in model-facing text', () => {
  it('finds the names a client could take for its own built-in tools, verbs included', () => {
    expect(bareToolMentions('Files: use read, write and edit.', names).map((hit) => hit.split(':')[0])).toEqual(['read', 'write', 'edit'])
    expect(bareToolMentions('Read it first; then re-read it.', names)).toHaveLength(2)
    expect(bareToolMentions('# str_replace_editor', names)).toHaveLength(1)
  })

  it('accepts the qualified form, alone or as a list, and the prefixed names clients show', () => {
    expect(bareToolMentions('Use the dsh `read`, `write` and `edit` tools, or the dsh `str_replace_editor` tool.', names)).toEqual([])
    expect(bareToolMentions('A client may show it as mcp__dsh__read, mcp_dsh_read or dsh_read.', names)).toEqual([])
  })

  it('does not count other words that contain a name', () => {
    expect(bareToolMentions('It reads, edits and rewrites; undo_edit reverts; readLimit caps it.', names)).toEqual([])
  })

  it('still finds a bare name after a qualified one in the same sentence', () => {
    expect(bareToolMentions('Call the dsh `read` tool, then edit.', names)).toEqual(['edit: …h `read` tool, then edit.…'])
  })
})
