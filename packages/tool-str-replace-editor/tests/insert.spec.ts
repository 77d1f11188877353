import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { rm, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { editorFixture, type EditorFixture, textOf } from './fixture'

let f: EditorFixture
let observed: FsObservation[]
afterEach(() => f.dispose())

async function setup(policy = true) {
  f = await editorFixture({ policy })
  observed = []
  f.ctx.on('fs/observed', (_target, observation) => void observed.push(observation))
}

async function viewed(name: string, content: string | Uint8Array) {
  await f.put(name, content)
  await f.ok({ command: 'view', path: name })
}

describe('insert with the policy', () => {
  it('adds whole lines after insert_line, shows the snippet and records the new version', async () => {
    await setup()
    await viewed('a.txt', 'one\ntwo\n')
    const text = await f.ok({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'between' })
    expect(text).toBe(`The file ${f.at('a.txt')} has been edited. Here's the result of running \`cat -n\` on a snippet of the edited file:\n`
      + '     1\tone\n     2\tbetween\n     3\ttwo\n'
      + 'Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.')
    expect((await f.bytes('a.txt'))?.toString()).toBe('one\nbetween\ntwo\n')
    const info = await f.fs.stat(await f.fs.resolve(f.at('a.txt')))
    // What was seen of the viewed version carries over, moved by the one line added after line 1.
    const viewedVersion = (observed.at(-2) as { version: string }).version
    expect(observed.at(-1)).toEqual({ kind: 'present', version: info!.version, seen: { ranges: [[1, 3]], total: 3 },
      from: { version: viewedVersion, changes: [{ line: 2, removedLines: 0, addedLines: 1 }] } })
  })

  it('inserts at the top with 0 and after the last line with the line count', async () => {
    await setup()
    await viewed('a.txt', 'one\ntwo')
    await f.ok({ command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'top' })
    await f.ok({ command: 'insert', path: 'a.txt', insert_line: 3, new_str: 'end' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('top\none\ntwo\nend')
  })

  it('refuses an insert_line outside [0, lines] without touching the file', async () => {
    await setup()
    await viewed('a.txt', 'one\ntwo\n')
    for (const line of [3, -1]) {
      const result = await f.call({ command: 'insert', path: 'a.txt', insert_line: line, new_str: 'x' })
      expect(result.error).toEqual({
        code: 'INVALID_ARGUMENTS',
        message: `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, 2]`,
      })
    }
    expect((await f.bytes('a.txt'))?.toString()).toBe('one\ntwo\n')
  })

  it('refuses an unviewed file with FS_NOT_OBSERVED', async () => {
    await setup()
    await f.put('a.txt', 'one\n')
    const result = await f.call({ command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'x' })
    expect(result.error?.code).toBe('FS_NOT_OBSERVED')
    expect(textOf(result)).toBe(`No insertion was performed: ${f.at('a.txt')} has not been viewed in this session. View the file, then retry.`)
  })

  it('refuses a file changed since the view with FS_STALE_VERSION and keeps the later change', async () => {
    await setup()
    await viewed('a.txt', 'one\n')
    await writeFile(f.at('a.txt'), 'someone else\n')
    const result = await f.call({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'x' })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
    expect(textOf(result)).toContain('View the file again, then retry.')
    expect((await f.bytes('a.txt'))?.toString()).toBe('someone else\n')
  })

  it('fails stale on a file deleted after the view and does not recreate it', async () => {
    await setup()
    await viewed('a.txt', 'one\n')
    await rm(f.at('a.txt'))
    const result = await f.call({ command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'x' })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
    expect(await f.bytes('a.txt')).toBeUndefined()
  })

  it('asks for insert_line and new_str', async () => {
    await setup()
    expect((await f.call({ command: 'insert', path: 'a.txt', new_str: 'x' })).error?.message)
      .toBe('Parameter `insert_line` is required for command: insert')
    expect((await f.call({ command: 'insert', path: 'a.txt', insert_line: 0 })).error?.message)
      .toBe('Parameter `new_str` is required for command: insert')
  })
})

describe('insert keeps the bytes it did not mean to touch', () => {
  it('gives inserted lines the CRLF of a CRLF file', async () => {
    await setup()
    await viewed('crlf.txt', 'one\r\ntwo\r\n')
    await f.ok({ command: 'insert', path: 'crlf.txt', insert_line: 1, new_str: 'a\nb\n' })
    expect((await f.bytes('crlf.txt'))?.toString()).toBe('one\r\na\r\nb\r\ntwo\r\n')
  })

  it('keeps the BOM and the mixed endings of the lines around the insertion', async () => {
    await setup()
    await viewed('bom.txt', '\uFEFFa\r\nb\nc\r\n')
    await f.ok({ command: 'insert', path: 'bom.txt', insert_line: 2, new_str: 'x' })
    expect(await f.bytes('bom.txt')).toEqual(Buffer.from('\uFEFFa\r\nb\nx\r\nc\r\n'))
  })
})

describe('insert without the policy (bare mode)', () => {
  it('inserts into an unviewed file with one stat and one read', async () => {
    await setup(false)
    await f.put('a.txt', 'one\n')
    f.log.reset()
    await f.ok({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'two' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('one\ntwo\n')
    expect([f.log.count('stat'), f.log.count('readText')]).toEqual([1, 1])
  })

  it('guards its write with the version of its stat, so a change right after the stat survives', async () => {
    await setup(false)
    await f.put('a.txt', 'one\n')
    f.log.afterNextStat(() => writeFile(f.at('a.txt'), 'racer\n'))
    const result = await f.call({ command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'x' })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
    expect((await f.bytes('a.txt'))?.toString()).toBe('racer\n')
  })

  it('records a missing file as absent, then fails FS_NOT_FOUND', async () => {
    await setup(false)
    const result = await f.call({ command: 'insert', path: 'gone.txt', insert_line: 0, new_str: 'x' })
    expect(result.error?.code).toBe('FS_NOT_FOUND')
    expect(observed).toEqual([{ kind: 'absent' }])
    expect(await f.bytes('gone.txt')).toBeUndefined()
  })
})

describe('insert with the policy', () => {
  it('takes no stat: the guard is the version the view recorded', async () => {
    await setup()
    await viewed('a.txt', 'one\n')
    f.log.reset()
    await f.ok({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'two' })
    expect(f.log.count('stat')).toBe(0)
  })
})
