import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { afterEach, describe, expect, it } from 'vitest'
import { editorFixture, type EditorFixture, textOf } from './fixture'

let f: EditorFixture
afterEach(() => f.dispose())

async function setup(policy: boolean) {
  f = await editorFixture({ policy })
  const observed: FsObservation[] = []
  f.ctx.on('fs/observed', (_target, observation) => void observed.push(observation))
  return observed
}

describe.each([true, false])('create (policy loaded: %s)', (policy) => {
  it('makes a new file with the exact text, parents included, and records it present', async () => {
    const observed = await setup(policy)
    const text = await f.ok({ command: 'create', path: 'sub/new.txt', file_text: 'héllo\n$& $$\n' })
    expect(text).toBe(`File created successfully at: ${f.at('sub/new.txt')}`)
    expect((await f.bytes('sub/new.txt'))?.toString()).toBe('héllo\n$& $$\n')
    const info = await f.fs.stat(await f.fs.resolve(f.at('sub/new.txt')))
    expect(observed).toEqual([{ kind: 'present', version: info!.version, seen: { ranges: [[1, 2]], total: 2 } }])
  })

  it('names insert at line 0 for an existing empty file, which str_replace has no text to quote in', async () => {
    await setup(policy)
    await f.put('empty.txt', '')
    const result = await f.call({ command: 'create', path: 'empty.txt', file_text: 'x\n' })
    expect(textOf(result)).toBe(`File already exists at: ${f.at('empty.txt')}, and it is empty. Cannot overwrite files using command \`create\`. `
      + 'View the file, then use the `insert` command with `insert_line` 0 and the content as `new_str`.')
    await f.ok({ command: 'view', path: 'empty.txt' })
    await f.ok({ command: 'insert', path: 'empty.txt', insert_line: 0, new_str: 'x' })
    expect((await f.bytes('empty.txt'))?.toString()).toBe('x\n')
  })

  it('never overwrites an existing file, even one never seen, and says how to change it', async () => {
    const observed = await setup(policy)
    await f.put('a.txt', 'original')
    const result = await f.call({ command: 'create', path: 'a.txt', file_text: 'clobber' })
    expect(result.error?.code).toBe('FS_NOT_OBSERVED')
    expect(textOf(result)).toBe(`File already exists at: ${f.at('a.txt')}. Cannot overwrite files using command \`create\`. `
      + 'View the file, then change it with `str_replace` or `insert`.')
    expect((await f.bytes('a.txt'))?.toString()).toBe('original')
    expect(observed).toEqual([])
  })

  it('refuses a directory in the way with FS_NOT_REGULAR_FILE', async () => {
    await setup(policy)
    await f.ok({ command: 'create', path: 'd/x', file_text: '' })
    const result = await f.call({ command: 'create', path: 'd', file_text: 'x' })
    expect(result.error?.code).toBe('FS_NOT_REGULAR_FILE')
  })

  it('asks for file_text', async () => {
    await setup(policy)
    const result = await f.call({ command: 'create', path: 'a.txt' })
    expect(result.error).toEqual({ code: 'INVALID_ARGUMENTS', message: 'Parameter `file_text` is required for command: create' })
    expect(await f.bytes('a.txt')).toBeUndefined()
  })
})

describe('create after a view', () => {
  it('still refuses to replace a file the session has viewed: create is for new files only', async () => {
    await setup(true)
    await f.put('a.txt', 'seen')
    await f.ok({ command: 'view', path: 'a.txt' })
    const result = await f.call({ command: 'create', path: 'a.txt', file_text: 'replaced' })
    expect(result.error?.code).toBe('FS_NOT_OBSERVED')
    expect((await f.bytes('a.txt'))?.toString()).toBe('seen')
  })
})

it('names a file that view cannot show when create meets it, instead of sending the model to view it', async () => {
  f = await editorFixture({ rooted: true })
  await f.put('latin1.txt', Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0x0a))
  const result = await f.call({ command: 'create', path: 'latin1.txt', file_text: 'café\n' })
  expect(result.error?.code).toBe('FS_NOT_REGULAR_FILE')
  expect(textOf(result)).toMatch(/is not UTF-8 text; a file that the `view` command cannot show is never replaced: pass another path\.$/)
  expect(textOf(result)).not.toContain('View the file')
  expect(await f.bytes('latin1.txt')).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
})
