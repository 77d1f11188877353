import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

const numbered = (count: number, width = 0) => Array.from({ length: count }, (_, i) => `line ${i + 1}${'x'.repeat(width)}`).join('\n') + '\n'

describe('a whole write under the seen rule', () => {
  it('is refused after a read of part of the file, naming the lines seen, the total and the calls that work', async () => {
    s = await stack({ policy: true, seenRule: true })
    const before = numbered(3000)
    await s.put('big.txt', before)
    await s.ok('read', { file_path: 'big.txt', offset: 10, limit: 5 })
    const result = await s.call('write', { file_path: 'big.txt', content: 'a\nb\nc\nd\ne\n' })
    expect(result.error?.code).toBe('FS_NOT_SEEN')
    expect(result.content[0]!.text).toBe(`Nothing was written: the dsh \`write\` tool replaces every line of ${s.path('big.txt')}, which has 3000 lines, `
      + 'and this session has been shown lines 10-14 (5 of 3000 lines). To change part of the file, call the dsh `edit` tool with old_string '
      + 'quoting the text to change. To replace the whole file, first call the dsh `read` tool with offset=1 (line 1 is the first line not shown yet); one read stops at its line and size limits, '
      + 'so call it again with the offset each answer ends with until one shows the end of the file, then retry.')
    expect((await s.bytes('big.txt'))!.toString()).toBe(before)
  })

  it('goes through once the reads named by the refusals have shown every line', async () => {
    s = await stack({ policy: true, seenRule: true })
    await s.put('big.txt', numbered(3000))
    await s.ok('read', { file_path: 'big.txt', offset: 10, limit: 5 })
    expect((await s.text('write', { file_path: 'big.txt', content: 'new\n' }))).toContain('with offset=1 (')
    await s.ok('read', { file_path: 'big.txt', offset: 1 })
    const second = await s.call('write', { file_path: 'big.txt', content: 'new\n' })
    expect(second.content[0]!.text).toContain('has been shown lines 1-2000 (2000 of 3000 lines)')
    expect(second.content[0]!.text).toContain('with offset=2001 (line 2001 is the first line not shown yet)')
    await s.ok('read', { file_path: 'big.txt', offset: 2001 })
    expect(await s.ok('write', { file_path: 'big.txt', content: 'new\n' })).toMatch(/^Updated /)
    expect((await s.bytes('big.txt'))!.toString()).toBe('new\n')
  })

  it('learns the line count of a streamed file only at its end, and asks for the next line until then', async () => {
    s = await stack({ policy: true, seenRule: true, config: { readStreamThreshold: 0, readLimit: 100 } })
    await s.put('big.txt', numbered(150))
    await s.ok('read', { file_path: 'big.txt' })
    const text = await s.text('write', { file_path: 'big.txt', content: 'new\n' })
    expect(text).toContain('replaces every line of')
    expect(text).toContain('has been shown lines 1-100 (100 lines)')
    expect(text).toContain('offset=101')
    await s.ok('read', { file_path: 'big.txt', offset: 101 })
    await s.ok('write', { file_path: 'big.txt', content: 'new\n' })
  })

  it('counts a line shown cut as not seen until a read with a column shows the rest of it', async () => {
    s = await stack({ policy: true, seenRule: true })
    await s.put('long.txt', `short\n${'y'.repeat(4500)}\nend\n`)
    await s.ok('read', { file_path: 'long.txt' })
    const first = await s.text('write', { file_path: 'long.txt', content: 'new\n' })
    expect(first).toContain('has been shown lines 1 and 3 (2 of 3 lines)')
    expect(first).toContain('with offset=2, limit=1, column=2001 (line 2 was shown up to character 2000)')
    await s.ok('read', { file_path: 'long.txt', offset: 2, limit: 1, column: 2001 })
    expect(await s.text('write', { file_path: 'long.txt', content: 'new\n' })).toContain('column=4001')
    await s.ok('read', { file_path: 'long.txt', offset: 2, limit: 1, column: 4001 })
    await s.ok('write', { file_path: 'long.txt', content: 'new\n' })
    expect((await s.bytes('long.txt'))!.toString()).toBe('new\n')
  })

  it('lets edit change part of a file seen in part, as before', async () => {
    s = await stack({ policy: true, seenRule: true })
    await s.put('big.txt', numbered(3000))
    await s.ok('read', { file_path: 'big.txt', offset: 10, limit: 5 })
    await s.ok('edit', { file_path: 'big.txt', old_string: 'line 12\n', new_string: 'twelve\n' })
    expect((await s.bytes('big.txt'))!.toString()).toBe(numbered(3000).replace('line 12\n', 'twelve\n'))
  })

  it('carries what was seen over the session\'s own edits, so a write after them needs no new read', async () => {
    s = await stack({ policy: true, seenRule: true })
    await s.put('a.txt', numbered(20))
    await s.ok('read', { file_path: 'a.txt' })
    await s.ok('edit', { file_path: 'a.txt', old_string: 'line 3\n', new_string: 'three\nand a half\n' })
    await s.ok('multi_edit', { file_path: 'a.txt', edits: [{ old_string: 'line 1\n', new_string: '' }, { old_string: 'line 20\n', new_string: 'last\n' }] })
    await s.ok('write', { file_path: 'a.txt', content: 'new\n' })
    // Written whole: all of it is seen, so a second write needs no read either.
    await s.ok('write', { file_path: 'a.txt', content: 'newer\n' })
    expect((await s.bytes('a.txt'))!.toString()).toBe('newer\n')
  })

  it('counts the lines an edit\'s reply shows as seen, and no other line it never showed', async () => {
    s = await stack({ policy: true, seenRule: true, config: { editSnippetContext: 0 } })
    await s.put('a.txt', numbered(20))
    await s.ok('read', { file_path: 'a.txt', limit: 5 })
    await s.ok('edit', { file_path: 'a.txt', old_string: 'line 12', new_string: 'twelve' })
    const text = await s.text('write', { file_path: 'a.txt', content: 'new\n' })
    expect(text).toContain('has been shown lines 1-5 and 12 (6 of 20 lines)')
    expect(text).toContain('offset=6')
  })

  it('counts a created file and an empty file as seen', async () => {
    s = await stack({ policy: true, seenRule: true })
    await s.ok('write', { file_path: 'new.txt', content: 'a\nb\n' })
    await s.ok('write', { file_path: 'new.txt', content: 'c\n' })
    await s.put('empty.txt', '')
    await s.ok('read', { file_path: 'empty.txt' })
    await s.ok('write', { file_path: 'empty.txt', content: 'filled\n' })
    expect((await s.bytes('empty.txt'))!.toString()).toBe('filled\n')
  })

  it('records what a stale refusal showed, so the retry of a small file goes through', async () => {
    s = await stack({ policy: true, seenRule: true, config: { staleRefusalObserves: true } })
    await s.put('a.txt', numbered(10))
    await s.ok('read', { file_path: 'a.txt' })
    await s.put('a.txt', numbered(12))
    expect((await s.call('write', { file_path: 'a.txt', content: 'new\n' })).error?.code).toBe('FS_STALE_VERSION')
    await s.ok('write', { file_path: 'a.txt', content: 'new\n' })
  })
})

describe('a whole write without the seen rule (the seed default)', () => {
  it('replaces a file seen in part, as the seed notes decide', async () => {
    s = await stack({ policy: true })
    await s.put('big.txt', numbered(3000))
    await s.ok('read', { file_path: 'big.txt', offset: 10, limit: 5 })
    await s.ok('write', { file_path: 'big.txt', content: 'new\n' })
    expect((await s.bytes('big.txt'))!.toString()).toBe('new\n')
  })
})
