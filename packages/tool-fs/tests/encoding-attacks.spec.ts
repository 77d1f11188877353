import iconv from 'iconv-lite'
import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

// Forty Windows-1252 lines (an é on each, so the file is not UTF-8) of even length: as UTF-16LE
// the same bytes decode exactly, to one long line with no line feed in it.
const LINES = Array.from({ length: 40 }, (_, i) => `line ${String(i + 1).padStart(2, '0')}: caf\xe9 secret${i % 2 === 0 ? 'x' : ''}\n`).join('')

describe('an encoding argument that differs from the one the read decided', () => {
  it('cannot make a file read in part count as seen whole, so a write cannot replace lines never shown', async () => {
    s = await stack({ policy: true, seenRule: true, config: { detectEncodings: true } })
    const bytes = iconv.encode(LINES.length % 2 === 0 ? LINES : `${LINES}.`, 'windows-1252')
    await s.put('fr.txt', bytes)
    expect(await s.ok('read', { file_path: 'fr.txt', limit: 2, encoding: 'windows-1252' })).toContain('line 02')
    // The first bytes, as the UTF-16LE text that spells them: under that encoding the file is one line, line 1.
    const first = iconv.decode(bytes.subarray(0, 8), 'utf-16le')
    const edit = await s.call('edit', { file_path: 'fr.txt', old_string: first, new_string: iconv.decode(Buffer.from('LINE'), 'utf-16le').repeat(2), encoding: 'utf-16le' })
    expect(edit.error?.code).toBe('FS_NOT_TEXT')
    const write = await s.call('write', { file_path: 'fr.txt', content: 'gone\n', encoding: 'windows-1252' })
    expect(write.error?.code).toBe('FS_NOT_SEEN')
    expect((await s.bytes('fr.txt'))!.equals(bytes)).toBe(true)
  })
})

describe('a long line read in parts under two encodings', () => {
  it('cannot add up to the line seen whole when the parts were decoded differently', async () => {
    s = await stack({ policy: true, seenRule: true, config: { detectEncodings: true, readMaxLineLength: 100 } })
    // One long Shift_JIS line (two bytes a character): as ISO-8859-1, every byte is a character.
    const bytes = Buffer.concat([iconv.encode('日本語のテキスト'.repeat(20), 'shift_jis'), Buffer.from('\nend\n')])
    await s.put('ja.txt', bytes)
    // Characters 1-100 as ISO-8859-1 are bytes 0-99; from character 101 on as Shift_JIS are bytes 200 on.
    await s.ok('read', { file_path: 'ja.txt', encoding: 'iso-8859-1' })
    await s.ok('read', { file_path: 'ja.txt', column: 101, encoding: 'shift_jis' })
    const write = await s.call('write', { file_path: 'ja.txt', content: 'gone\n', encoding: 'shift_jis' })
    expect(write.error?.code).toBe('FS_NOT_SEEN')
    expect((await s.bytes('ja.txt'))!.equals(bytes)).toBe(true)
    // The same two parts in one encoding do add up to the whole line.
    await s.ok('read', { file_path: 'ja.txt', encoding: 'shift_jis' })
    await s.ok('read', { file_path: 'ja.txt', column: 101, encoding: 'shift_jis' })
    await s.ok('write', { file_path: 'ja.txt', content: 'kept\n', encoding: 'shift_jis' })
    expect((await s.bytes('ja.txt'))!.toString()).toBe('kept\n')
  })
})
