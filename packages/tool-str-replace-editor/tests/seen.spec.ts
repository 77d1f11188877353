import { type Stack, stack } from '@deepseek-ai/dsh-test-kit'
import { afterEach, describe, expect, it } from 'vitest'

// Both families on one session: what the editor shows counts for the dsh `write` tool's seen rule.
let s: Stack
afterEach(async () => {
  await s.dispose()
})

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const editor = (args: Record<string, unknown>) => s.ok('str_replace_editor', args)

describe('what the editor showed, under the seen rule', () => {
  it('a view of the whole file lets write replace it; a view_range of part does not', async () => {
    s = await stack({ policyConfig: { seenBeforeReplace: true } })
    await s.put('a.txt', numbered(20))
    await s.put('b.txt', numbered(20))
    await editor({ command: 'view', path: s.path('a.txt') })
    await s.ok('write', { file_path: 'a.txt', content: 'new\n' })
    await editor({ command: 'view', path: s.path('b.txt'), view_range: [10, 14] })
    const refused = await s.call('write', { file_path: 'b.txt', content: 'new\n' })
    expect(refused.error?.code).toBe('FS_NOT_SEEN')
    expect(refused.content[0]!.text).toContain('has been shown lines 10-14 (5 lines)')
    expect((await s.bytes('b.txt'))!.toString()).toBe(numbered(20))
  })

  it('str_replace and insert carry what was seen over, shifted by the lines they added, and add the lines their snippets show', async () => {
    s = await stack({ policyConfig: { seenBeforeReplace: true } })
    await s.put('a.txt', numbered(20))
    await editor({ command: 'view', path: s.path('a.txt'), view_range: [1, 5] })
    await editor({ command: 'insert', path: s.path('a.txt'), insert_line: 2, new_str: 'x\ny\n' })
    await editor({ command: 'str_replace', path: s.path('a.txt'), old_str: 'line 1\n', new_str: 'one\nuno\n' })
    const text = await s.text('write', { file_path: 'a.txt', content: 'new\n' })
    // Lines 1-5 seen and 2 inserted after line 2: 1-7 of 22, and the insert's snippet shows 1-8. The
    // replacement of line 1 by two lines moves them to 1-9 of 23 (its own snippet shows 1-6).
    expect(text).toContain('has been shown lines 1-9 (9 of 23 lines)')
    expect(text).toContain('offset=10')
  })

  it('a created file is seen whole, and undo_edit shows (and so counts as seen) the text it restores', async () => {
    s = await stack({ policyConfig: { seenBeforeReplace: true } })
    await editor({ command: 'create', path: s.path('c.txt'), file_text: numbered(5) })
    await editor({ command: 'str_replace', path: s.path('c.txt'), old_str: 'line 2', new_str: 'two' })
    await editor({ command: 'undo_edit', path: s.path('c.txt') })
    await s.ok('write', { file_path: 'c.txt', content: 'new\n' })
    expect((await s.bytes('c.txt'))!.toString()).toBe('new\n')
  })
})
