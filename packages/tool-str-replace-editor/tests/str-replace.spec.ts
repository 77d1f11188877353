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

const BOM = '\uFEFF'

describe('str_replace with the policy', () => {
  it('replaces the one match, shows a numbered snippet and records the new version', async () => {
    await setup()
    await f.put('a.txt', 'l1\nl2\nl3\nl4\nl5\nl6\nold\nl8\nl9\nl10\nl11\nl12\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    const text = await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'old', new_str: 'new\nextra' })
    expect(text).toBe(`The file ${f.at('a.txt')} has been edited. Here's the result of running \`cat -n\` on a snippet of ${f.at('a.txt')}:\n`
      + '     3\tl3\n     4\tl4\n     5\tl5\n     6\tl6\n     7\tnew\n     8\textra\n     9\tl8\n    10\tl9\n    11\tl10\n    12\tl11\n'
      + 'Review the changes and make sure they are as expected. Edit the file again if necessary.')
    expect((await f.bytes('a.txt'))?.toString()).toBe('l1\nl2\nl3\nl4\nl5\nl6\nnew\nextra\nl8\nl9\nl10\nl11\nl12\n')
    const info = await f.fs.stat(await f.fs.resolve(f.at('a.txt')))
    const viewedVersion = (observed.at(-2) as { version: string }).version
    // The snippet shows lines 3-12 of the new version: those are seen too.
    expect(observed.at(-1)).toEqual({ kind: 'present', version: info!.version, seen: { ranges: [[3, 12]], total: 13 },
      from: { version: viewedVersion, changes: [{ line: 7, removedLines: 1, addedLines: 2 }] } })
  })

  it('edits again right after its own edit without another view', async () => {
    await setup()
    await f.put('a.txt', 'a b c\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 'A' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'b', new_str: 'B' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('A B c\n')
  })

  it('deletes old_str when new_str is omitted and writes $ patterns literally', async () => {
    await setup()
    await f.put('a.txt', 'keep DROP keep\nx\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: ' DROP' })
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'x', new_str: "$& $' $$" })
    expect((await f.bytes('a.txt'))?.toString()).toBe("keep keep\n$& $' $$\n")
  })

  it('refuses a file not viewed in this session with FS_NOT_OBSERVED and the view remedy', async () => {
    await setup()
    await f.put('a.txt', 'text\n')
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'text', new_str: 'x' })
    expect(result.error?.code).toBe('FS_NOT_OBSERVED')
    expect(textOf(result)).toBe(`No replacement was performed: ${f.at('a.txt')} has not been viewed in this session. View the file, then retry.`)
    expect((await f.bytes('a.txt'))?.toString()).toBe('text\n')
  })

  it('refuses a file changed since the view with FS_STALE_VERSION and the re-read remedy, before matching', async () => {
    await setup()
    await f.put('a.txt', 'text\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await writeFile(f.at('a.txt'), 'formatter was here\n')
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'not there', new_str: 'x' })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
    expect(textOf(result)).toBe(`No replacement was performed: ${f.at('a.txt')} has changed or been deleted since you last viewed it. View the file again, then retry.`)
    expect((await f.bytes('a.txt'))?.toString()).toBe('formatter was here\n')
  })

  it('says old_str did not appear verbatim, with FS_EDIT_NOT_FOUND', async () => {
    await setup()
    await f.put('a.txt', 'text\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'Text', new_str: 'x' })
    expect(result.error).toEqual({
      code: 'FS_EDIT_NOT_FOUND',
      message: `No replacement was performed, old_str \`Text\` did not appear verbatim in ${f.at('a.txt')}. No line there resembles its first or last line, even ignoring whitespace and quotes; check that old_str is text of this file.`,
    })
  })

  it('refuses an empty old_str without touching the file', async () => {
    await setup()
    await f.put('a.txt', 'text\n')
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_str: '', new_str: 'x' })
    expect(result.error?.code).toBe('FS_EDIT_NOT_FOUND')
    expect(textOf(result)).toContain('old_str is empty')
  })

  it('names the lines of every occurrence of an ambiguous old_str, with FS_AMBIGUOUS_EDIT', async () => {
    await setup()
    await f.put('a.txt', 'x\r\ndup\r\ny\r\nz\r\nw\r\nv\r\ndup\r\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'dup', new_str: 'one' })
    expect(result.error).toEqual({
      code: 'FS_AMBIGUOUS_EDIT',
      message: 'No replacement was performed. Multiple occurrences of old_str `dup` in lines [2, 7]. Please ensure it is unique',
    })
    expect((await f.bytes('a.txt'))?.toString()).toBe('x\r\ndup\r\ny\r\nz\r\nw\r\nv\r\ndup\r\n')
    // The lines come with the provider's error: the file is not read again to find them.
    expect(f.log.count('readText')).toBe(0)
  })

  it('names a line that holds several occurrences once, with their count', async () => {
    await setup()
    await f.put('a.txt', 'x = x + 1\ny = 2\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'x', new_str: 'z' })
    expect(result.error).toEqual({
      code: 'FS_AMBIGUOUS_EDIT',
      message: 'No replacement was performed. Multiple occurrences of old_str `x`: 2 occurrences on line 1. Please ensure it is unique',
    })
    const spread = await f.call({ command: 'str_replace', path: 'a.txt', old_str: '=', new_str: '==' })
    expect(textOf(spread)).toContain('in lines [1, 2].')
    expect(textOf(spread)).not.toMatch(/\[1, 1/)
    expect((await f.bytes('a.txt'))?.toString()).toBe('x = x + 1\ny = 2\n')
  })

  it('shows the snippet where the edit landed in a file above the provider\'s diff bound', async () => {
    await setup()
    // 30,001 lines (about 700 KB, above the 512 KiB diffMaxBytes) before the edited one; the new text
    // also occurs at the top, where a search of the new text for it would land.
    const head = ['fresh', ...Array.from({ length: 30_000 }, (_, i) => `filler line ${i + 2}`)].join('\n')
    await f.put('big.txt', `${head}\nstale\nafter 1\nafter 2\nafter 3\nafter 4\nafter 5\n`)
    await f.ok({ command: 'view', path: 'big.txt', view_range: [30_000, 30_003] })
    const text = await f.ok({ command: 'str_replace', path: 'big.txt', old_str: 'stale', new_str: 'fresh' })
    expect(text).toBe(`The file ${f.at('big.txt')} has been edited. Here's the result of running \`cat -n\` on a snippet of ${f.at('big.txt')}:\n`
      + ' 29998\tfiller line 29998\n 29999\tfiller line 29999\n 30000\tfiller line 30000\n 30001\tfiller line 30001\n 30002\tfresh\n'
      + ' 30003\tafter 1\n 30004\tafter 2\n 30005\tafter 3\n 30006\tafter 4\n'
      + 'Review the changes and make sure they are as expected. Edit the file again if necessary.')
    expect(f.log.count('readText')).toBe(0)
  })

  it('fails stale on a file deleted after the view, as the first mutation after an unseen deletion must', async () => {
    await setup()
    await f.put('a.txt', 'text\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    await rm(f.at('a.txt'))
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_str: 'text', new_str: 'x' })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
  })

  it('asks for old_str', async () => {
    await setup()
    const result = await f.call({ command: 'str_replace', path: 'a.txt', new_str: 'x' })
    expect(result.error).toEqual({ code: 'INVALID_ARGUMENTS', message: 'Parameter `old_str` is required for command: str_replace' })
  })
})

describe('str_replace keeps the bytes it did not mean to touch', () => {
  it('keeps CRLF line endings and gives new lines the file ending', async () => {
    await setup()
    await f.put('crlf.txt', 'one\r\ntwo\r\nthree\r\n')
    await f.ok({ command: 'view', path: 'crlf.txt' })
    await f.ok({ command: 'str_replace', path: 'crlf.txt', old_str: 'two\n', new_str: 'TWO\nmore\n' })
    expect((await f.bytes('crlf.txt'))?.toString()).toBe('one\r\nTWO\r\nmore\r\nthree\r\n')
  })

  it('keeps a BOM and mixed line endings outside the replaced span', async () => {
    await setup()
    await f.put('bom.txt', `${BOM}a\r\nb\nc\r\n`)
    await f.ok({ command: 'view', path: 'bom.txt' })
    await f.ok({ command: 'str_replace', path: 'bom.txt', old_str: 'c', new_str: 'C' })
    expect(await f.bytes('bom.txt')).toEqual(Buffer.from(`${BOM}a\r\nb\nC\r\n`))
  })
})

describe('str_replace without the policy (bare mode)', () => {
  it('edits a file nobody viewed, with zero stat calls', async () => {
    await setup(false)
    await f.put('a.txt', 'text\n')
    f.log.reset()
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'text', new_str: 'edited' })
    expect((await f.bytes('a.txt'))?.toString()).toBe('edited\n')
    expect(f.log.count('stat')).toBe(0)
  })

  it('records a missing file as absent, then fails FS_NOT_FOUND with the create remedy', async () => {
    await setup(false)
    const result = await f.call({ command: 'str_replace', path: 'gone.txt', old_str: 'a', new_str: 'b' })
    expect(result.error?.code).toBe('FS_NOT_FOUND')
    expect(textOf(result)).toContain('use the `create` command')
    expect(observed).toEqual([{ kind: 'absent' }])
    expect(await f.bytes('gone.txt')).toBeUndefined()
  })
})

describe('str_replace with the policy takes no stat', () => {
  it('spends its one view stat and nothing more', async () => {
    await setup()
    await f.put('a.txt', 'text\n')
    await f.ok({ command: 'view', path: 'a.txt' })
    f.log.reset()
    await f.ok({ command: 'str_replace', path: 'a.txt', old_str: 'text', new_str: 'x' })
    expect(f.log.count('stat')).toBe(0)
  })
})
