import iconv from 'iconv-lite'
import { afterEach, describe, expect, it } from 'vitest'
import { editorFixture, type EditorFixture, textOf } from './fixture'

let f: EditorFixture
afterEach(() => f.dispose())

const KOREAN = '대한민국은 민주공화국이다.\n대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다.\n'
  + '대한민국의 국민이 되는 요건은 법률로 정한다. 국가는 법률이 정하는 바에 의하여 재외국민을 보호할 의무를 진다.\n'

describe('legacy encodings in the editor', () => {
  it('views, names, replaces, inserts into and undoes a UTF-16LE file with its BOM, byte-exact', async () => {
    f = await editorFixture({ config: { detectEncodings: true } })
    const text = 'first line ✓\r\nsecond 🐈 line\r\n'
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')])
    await f.put('u16.txt', bytes)
    const view = await f.ok({ command: 'view', path: 'u16.txt' })
    expect(view).toContain('     2\tsecond 🐈 line')
    expect(view).toContain('[The file is in utf-16le, not UTF-8')
    await f.ok({ command: 'str_replace', path: 'u16.txt', old_str: 'second 🐈', new_str: 'second 🐕' })
    const expected = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text.replace('🐈', '🐕'), 'utf-16le')])
    expect((await f.bytes('u16.txt'))!.equals(expected)).toBe(true)
    await f.ok({ command: 'insert', path: 'u16.txt', insert_line: 2, new_str: 'third' })
    expect((await f.bytes('u16.txt'))!.subarray(expected.length).equals(iconv.encode('third\r\n', 'utf-16le'))).toBe(true)
    await f.ok({ command: 'undo_edit', path: 'u16.txt' })
    expect((await f.bytes('u16.txt'))!.equals(expected)).toBe(true)
  })

  it('edits an EUC-KR file found by the detector, changing only the bytes of the replaced text', async () => {
    f = await editorFixture({ config: { detectEncodings: true } })
    const bytes = iconv.encode(KOREAN, 'euc-kr')
    await f.put('ko.txt', bytes)
    await f.ok({ command: 'view', path: 'ko.txt' })
    await f.ok({ command: 'str_replace', path: 'ko.txt', old_str: '민주공화국', new_str: '공화국' })
    expect((await f.bytes('ko.txt'))!.equals(iconv.encode(KOREAN.replace('민주공화국', '공화국'), 'euc-kr'))).toBe(true)
    const refused = await f.call({ command: 'str_replace', path: 'ko.txt', old_str: '공화국', new_str: '共和國 🐈' })
    expect(refused.error?.code).toBe('FS_NOT_ENCODABLE')
    expect(textOf(refused)).toContain('"🐈" (U+1F408)')
  })

  it('shows a legacy file as the call decodes it when a str_replace misses or is stale, and the retry works unviewed', async () => {
    f = await editorFixture({ config: { detectEncodings: true, staleRefusalObserves: true } })
    await f.put('ko.txt', iconv.encode(KOREAN, 'euc-kr'))
    await f.ok({ command: 'view', path: 'ko.txt' })
    const missed = await f.call({ command: 'str_replace', path: 'ko.txt', old_str: '대한민국은  민주공화국이다.', new_str: 'x' })
    expect(missed.error?.code).toBe('FS_EDIT_NOT_FOUND')
    expect(textOf(missed)).toContain('대한민국은 민주공화국이다.')
    const changed = KOREAN.replace('모든 권력은', '모든 권한은')
    await f.put('ko.txt', iconv.encode(changed, 'euc-kr'))
    const stale = await f.call({ command: 'str_replace', path: 'ko.txt', old_str: '민주공화국', new_str: '공화국' })
    expect(stale.error?.code).toBe('FS_STALE_VERSION')
    expect(textOf(stale)).toContain('모든 권한은')
    await f.ok({ command: 'str_replace', path: 'ko.txt', old_str: '민주공화국', new_str: '공화국' })
    expect((await f.bytes('ko.txt'))!.equals(iconv.encode(changed.replace('민주공화국', '공화국'), 'euc-kr'))).toBe(true)
  })

  it('refuses an undecidable file naming the encoding argument, which then views it', async () => {
    f = await editorFixture({ config: { detectEncodings: true } })
    await f.put('short.txt', iconv.encode('ab\xe9\n', 'latin1'))
    const refused = await f.call({ command: 'view', path: 'short.txt' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(textOf(refused)).toContain('call the dsh `str_replace_editor` tool again with encoding set to it')
    expect(await f.ok({ command: 'view', path: 'short.txt', encoding: 'iso-8859-1' })).toContain('     1\tabé')
  })

  it('refuses a binary file as binary with detection on, never as an encoding it could not tell', async () => {
    f = await editorFixture({ config: { detectEncodings: true } })
    await f.put('logo.png', Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0, 1))
    const refused = await f.call({ command: 'view', path: 'logo.png' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(textOf(refused)).toMatch(/^\S+logo\.png is not UTF-8 text: binary data \(NUL byte at offset 4\)\. These tools show and change text \(UTF-8, UTF-16 or a legacy encoding\) only: if this is text in an encoding the tool could not tell, call the dsh `str_replace_editor` tool again with encoding set to it \(supported: [^)]+\); otherwise pass the path of a text file\.$/)
    expect(textOf(refused)).not.toMatch(/uncertain|detector/)
  })

  it('sends a str_replace of an unviewed Windows-1252 file to view it first when detection is on, and then it works', async () => {
    f = await editorFixture({ config: { detectEncodings: true } })
    const french = "Le château de la forêt était très ancien ; les élèves étudiaient près de la fenêtre.\r\nÀ l'été, on mangeait des crêpes et des gâteaux à la crème.\r\n"
    await f.put('fr.txt', iconv.encode(french, 'windows-1252'))
    const refused = await f.call({ command: 'str_replace', path: 'fr.txt', old_str: 'très', new_str: 'fort' })
    expect(refused.error?.code).toBe('FS_NOT_OBSERVED')
    expect(textOf(refused)).toBe(`No replacement was performed: ${f.at('fr.txt')} has not been viewed in this session. View the file, then retry.`)
    await f.ok({ command: 'view', path: 'fr.txt' })
    await f.ok({ command: 'str_replace', path: 'fr.txt', old_str: 'très', new_str: 'fort' })
    expect((await f.bytes('fr.txt'))!.equals(iconv.encode(french.replace('très', 'fort'), 'windows-1252'))).toBe(true)
  })

  it.each([
    [{}, 'These tools show and change UTF-8 text only: pass the path of a text file.'],
    [{ readMedia: true }, 'These tools show UTF-8 text, images (PNG, JPEG, GIF, WebP) and PDFs only: pass the path of one of those.'],
  ])('names what the tools show when refusing a view of a binary file (config %j)', async (config, remedy) => {
    f = await editorFixture({ config })
    await f.put('data.bin', Uint8Array.of(1, 2, 0, 3, 10))
    const refused = await f.call({ command: 'view', path: 'data.bin' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(textOf(refused)).toBe(`${f.at('data.bin')} is not UTF-8 text: binary data (NUL byte at offset 2). ${remedy}`)
  })
})
