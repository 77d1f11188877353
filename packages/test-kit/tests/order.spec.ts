import { describe, expect, it } from 'vitest'
import { stack, type StackPart } from '../src/index'

// Cordis `inject` keeps a tool plugin pending until `fs`, `tools` and `systemPrompt` exist, so a
// programmatic `ctx.plugin` sequence may load the parts in any order and still end with every tool.
const orders: StackPart[][] = [
  ['tool-fs', 'str-replace-editor', 'tools', 'provider', 'policy'],
  ['tool-fs', 'str-replace-editor', 'provider', 'tools', 'policy'],
  ['policy', 'str-replace-editor', 'tools', 'tool-fs', 'provider'],
]

describe('ctx.plugin order', () => {
  it.each(orders)('%s, %s, %s, %s, %s: every tool registers once the services appear, and the policy holds', async (...order) => {
    await using usual = await stack()
    await using s = await stack({ order })
    expect(s.ctx.tools.list().map((tool) => tool.name)).toEqual(usual.ctx.tools.list().map((tool) => tool.name))
    expect(s.ctx.systemPrompt.render()).toBe(usual.ctx.systemPrompt.render())
    await s.put('a.txt', 'one\n')
    expect((await s.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })).error?.code).toBe('FS_NOT_OBSERVED')
    await s.ok('read', { file_path: 'a.txt' })
    await s.ok('str_replace_editor', { command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'two' })
    expect(await s.bytes('a.txt')).toEqual(Buffer.from('two\n'))
  })

  it('fails to start, naming the service, when no plugin provides one a tool family needs', async () => {
    await expect(stack({ order: ['tool-fs', 'tools', 'policy'] })).rejects.toThrow('the stack did not start: dsh-tool-fs waits for fs')
    await expect(stack({ order: ['provider', 'str-replace-editor'] })).rejects.toThrow('the stack did not start: dsh-tool-str-replace-editor waits for tools, systemPrompt')
  })
})
