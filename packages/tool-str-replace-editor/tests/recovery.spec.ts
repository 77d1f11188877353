import { rm, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { editorFixture, type EditorFixture } from './fixture'

let f: EditorFixture
afterEach(() => f.dispose())

// The seed note's chain, through this tool only: a deletion nobody saw, a stale edit, a view that
// records the absence, and a guarded create that recovers (or loses to a competitor, intact).
describe('recovery after an external delete', () => {
  it('goes stale, then view records absent, then str_replace is refused FS_NOT_FOUND, then create recovers', async () => {
    f = await editorFixture()
    await f.put('a.txt', 'v1\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await rm(f.at('a.txt'))

    expect((await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'v1', new_str: 'v2' })).error?.code).toBe('FS_STALE_VERSION')
    expect((await f.call({ command: 'view', path: 'a.txt' })).error?.code).toBe('FS_NOT_FOUND')
    // The policy now holds `absent`: edits are refused without editing; one stat each, on this
    // failure path, checks the memory against the disk before "does not exist" is said.
    f.log.reset()
    expect((await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'v1', new_str: 'v2' })).error?.code).toBe('FS_NOT_FOUND')
    expect((await f.call({ command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'x' })).error?.code).toBe('FS_NOT_FOUND')
    expect(f.log.count('stat')).toBe(2)
    expect(f.log.count('editText')).toBe(0)

    await f.ok({ command: 'create', path: 'a.txt', file_text: 'v2\n' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('v2\n')
    // The create recorded the new version: the next edit needs no view.
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'v2', new_str: 'v3' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('v3\n')
  })

  it('leaves a competitor that created the file first intact and answers FS_NOT_OBSERVED', async () => {
    f = await editorFixture()
    await f.put('a.txt', 'v1\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await rm(f.at('a.txt'))
    await f.call({ command: 'view', path: 'a.txt' })
    await writeFile(f.at('a.txt'), 'competitor\n')
    const result = await f.call({ command: 'create', path: 'a.txt', file_text: 'mine\n' })
    expect(result.error?.code).toBe('FS_NOT_OBSERVED')
    expect((await f.bytes('a.txt'))?.toString()).toBe('competitor\n')
  })

  it('keeps two sessions apart: one session viewing a file does not let the other edit it', async () => {
    f = await editorFixture()
    const other = { cwd: f.dir }
    await f.put('a.txt', 'x\n')
    await f.ok({ command: 'view', path: 'a.txt' }, other)
    expect((await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'x', new_str: 'y' })).error?.code).toBe('FS_NOT_OBSERVED')
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'x', new_str: 'y' }, other)
    expect((await f.bytes('a.txt'))?.toString()).toBe('y\n')
  })
})
