import { describe, expect, it } from 'vitest'
import { stack, type StackOptions } from '../src/index'

const providers: [string, StackOptions][] = [
  ['memory', { provider: 'memory' }],
  ['local', { provider: 'local' }],
  ['local with a root', { provider: 'local', rooted: true }],
  ['e2b against the envd emulator', { provider: 'e2b' }],
]

describe.each(providers)('the assembled stack on %s', (_, options) => {
  it('reads, refuses a stale edit, and edits after a re-read, with every provider call logged', async () => {
    await using s = await stack(options)
    await s.put('a.txt', 'one\n')
    expect(await s.ok('read', { file_path: 'a.txt' })).toContain('one')
    await s.put('a.txt', 'one!\n')
    expect((await s.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })).error?.code).toBe('FS_STALE_VERSION')
    await s.ok('str_replace_editor', { command: 'view', path: s.path('a.txt') })
    await s.ok('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })
    expect(await s.bytes('a.txt')).toEqual(Buffer.from('two!\n'))
    expect(s.log.calls).toContain('editText')
    expect(await s.bytes('absent.txt')).toBeUndefined()
  })
})

describe('the kit', () => {
  it('loads only the families asked for, without the policy when told', async () => {
    await using s = await stack({ tools: ['str-replace-editor'], policy: false })
    expect(s.ctx.tools.list().map((tool) => tool.name)).toEqual(['str_replace_editor'])
    await s.put('a.txt', 'x\n')
    // No policy: an unread file may be overwritten.
    expect((await s.call('str_replace_editor', { command: 'str_replace', path: 'a.txt', old_str: 'x', new_str: 'y' })).isError).toBe(false)
  })

  it('gives staleRefusalObserves to both families', async () => {
    await using s = await stack({ staleRefusalObserves: true })
    await s.put('a.txt', 'one\n')
    await s.ok('read', { file_path: 'a.txt' })
    await s.put('a.txt', 'uno\n')
    expect((await s.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })).error?.code).toBe('FS_STALE_VERSION')
    // The refusal showed the current text and recorded it: the next edit needs no read.
    await s.ok('edit', { file_path: 'a.txt', old_string: 'uno', new_string: 'dos' })
    expect(await s.bytes('a.txt')).toEqual(Buffer.from('dos\n'))
  })

  it('removes its directories on dispose', async () => {
    const s = await stack()
    await s.put('a.txt', 'x')
    await s.dispose()
    expect(await s.bytes('a.txt')).toBeUndefined()
  })

  it('refuses rooted for a provider that has no root', async () => {
    await expect(stack({ provider: 'memory', rooted: true })).rejects.toThrow('rooted applies to the local provider, not memory')
  })
})
