import iconv from 'iconv-lite'
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SUPPORTED_ENCODINGS } from '@deepseek-ai/dsh-tool-text'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

const FRENCH = "1: Le château de la forêt était très ancien ; les élèves étudiaient près de la fenêtre.\r\n"
  + "2: À l'été, on mangeait des crêpes et des gâteaux à la crème : c'était naïf et délicieux.\r\n"
  + '3: Le garçon a reçu une lettre de son père, déçu que la fête fût annulée.\r\n'
const JAPANESE = '吾輩は猫である。名前はまだ無い。\nどこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\n'
  + '吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。\n'

describe('legacy encodings through the tools', () => {
  it('reads, names, edits and rewrites a Windows-1252 file byte-exact when detection is on', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true } })
    const bytes = iconv.encode(FRENCH, 'windows-1252')
    await s.put('fr.txt', bytes)
    const read = await s.ok('read', { file_path: 'fr.txt' })
    expect(read).toContain('     2\t2: À l\'été')
    expect(read).toContain('[The file is in windows-1252, not UTF-8')
    await s.ok('edit', { file_path: 'fr.txt', old_string: 'très ancien', new_string: 'fort ancien' })
    expect((await s.bytes('fr.txt'))!.equals(iconv.encode(FRENCH.replace('très ancien', 'fort ancien'), 'windows-1252'))).toBe(true)
    await s.ok('multi_edit', { file_path: 'fr.txt', edits: [{ old_string: 'crêpes', new_string: 'galettes' }] })
    await s.ok('write', { file_path: 'fr.txt', content: 'déjà vu\nfin\n' })
    expect((await s.bytes('fr.txt'))!.equals(iconv.encode('déjà vu\r\nfin\r\n', 'windows-1252'))).toBe(true)
  })

  it('refuses a character the file encoding cannot hold, naming it, and writes nothing', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true } })
    const bytes = iconv.encode(JAPANESE, 'shift_jis')
    await s.put('ja.txt', bytes)
    await s.ok('read', { file_path: 'ja.txt' })
    const result = await s.call('edit', { file_path: 'ja.txt', old_string: '名前はまだ無い', new_string: '名前は 🐈' })
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('FS_NOT_ENCODABLE')
    expect(result.content[0]!.text).toContain('is in shift_jis, which has no "🐈" (U+1F408) (line 1, column 13 of the new text); nothing was written')
    expect((await s.bytes('ja.txt'))!.equals(bytes)).toBe(true)
  })

  it('refuses an undecidable file naming candidates and the encoding argument, which then reads it', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true } })
    // Two Latin-1 letters in ASCII: too little for the detector to be sure.
    await s.put('short.txt', iconv.encode('ab\xe9\n', 'latin1'))
    const refused = await s.call('read', { file_path: 'short.txt' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(refused.content[0]!.text).toMatch(/encoding detector found no supported encoding likely.*call the dsh `read` tool again with encoding set to it/)
    expect(await s.ok('read', { file_path: 'short.txt', encoding: 'iso-8859-1' })).toContain('     1\tabé')
  })

  it('keeps refusing a file that is not UTF-8 when detection is off (the default)', async () => {
    s = await stack({ policy: true })
    await s.put('fr.txt', iconv.encode(FRENCH, 'windows-1252'))
    expect((await s.call('read', { file_path: 'fr.txt' })).error?.code).toBe('FS_NOT_TEXT')
  })

  it('reads a legacy file that is streamed (above readStreamThreshold) from any offset', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true, readStreamThreshold: 16 } })
    await s.put('ja.txt', iconv.encode(JAPANESE, 'shift_jis'))
    const read = await s.ok('read', { file_path: 'ja.txt', offset: 2, limit: 1 })
    expect(read).toContain('     2\tどこで生れたか')
    expect(read).toContain('[The file is in shift_jis')
  })

  it('keeps the seen rule and version guard of UTF-8 for a legacy file', async () => {
    s = await stack({ policy: true, seenRule: true, config: { detectEncodings: true } })
    await s.put('ja.txt', iconv.encode(JAPANESE, 'shift_jis'))
    await s.ok('read', { file_path: 'ja.txt', limit: 1 })
    expect((await s.call('write', { file_path: 'ja.txt', content: '猫\n' })).error?.code).toBe('FS_NOT_SEEN')
    await s.ok('read', { file_path: 'ja.txt' })
    await s.put('ja.txt', iconv.encode(`${JAPANESE}追記\n`, 'shift_jis'))
    expect((await s.call('edit', { file_path: 'ja.txt', old_string: '吾輩は猫である', new_string: '猫' })).error?.code).toBe('FS_STALE_VERSION')
    await s.ok('read', { file_path: 'ja.txt' })
    await s.ok('write', { file_path: 'ja.txt', content: '猫\n' })
    expect((await s.bytes('ja.txt'))!.equals(iconv.encode('猫\n', 'shift_jis'))).toBe(true)
  })

  it('shows the current lines of a legacy file on a stale edit, decoded as the call decodes, so that the retry works unread', async () => {
    s = await stack({ policy: true, seenRule: true, config: { detectEncodings: true, staleRefusalObserves: true } })
    await s.put('ja.txt', iconv.encode(JAPANESE, 'shift_jis'))
    await s.ok('read', { file_path: 'ja.txt' })
    await s.put('ja.txt', iconv.encode(JAPANESE.replace('名前はまだ無い', '名前はタマ'), 'shift_jis'))
    const stale = await s.call('edit', { file_path: 'ja.txt', old_string: '吾輩は猫である', new_string: '猫' })
    expect(stale.error?.code).toBe('FS_STALE_VERSION')
    expect(stale.content[0]!.text).toContain('     1\t吾輩は猫である。名前はタマ。')
    await s.ok('edit', { file_path: 'ja.txt', old_string: '吾輩は猫である', new_string: '猫' })
    expect((await s.bytes('ja.txt'))!.equals(iconv.encode(JAPANESE.replace('名前はまだ無い', '名前はタマ').replace('吾輩は猫である', '猫'), 'shift_jis'))).toBe(true)
  })

  it('points a missed edit of a legacy file at its closest lines, decoded as the call decodes', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true } })
    await s.put('fr.txt', iconv.encode(FRENCH, 'windows-1252'))
    await s.ok('read', { file_path: 'fr.txt' })
    const missed = await s.call('edit', { file_path: 'fr.txt', old_string: '3:  Le garçon  a reçu une lettre', new_string: 'x' })
    expect(missed.error?.code).toBe('FS_EDIT_NOT_FOUND')
    expect(missed.content[0]!.text).toContain('3: Le garçon a reçu une lettre')
    const step = await s.call('multi_edit', { file_path: 'fr.txt', edits: [{ old_string: 'crêpes', new_string: 'galettes' }, { old_string: '3:  Le garçon  a reçu une lettre', new_string: 'x' }] })
    expect(step.content[0]!.text).toContain('3: Le garçon a reçu une lettre')
  })

  it('carries the decoding of a call in its options, never through an async context', async () => {
    // An AsyncLocalStorage that has run makes Node 20 track every promise of the process.
    s = await stack({ policy: true, seenRule: true, config: { detectEncodings: true } })
    await s.put('fr.txt', iconv.encode(FRENCH, 'windows-1252'))
    const entered = [vi.spyOn(AsyncLocalStorage.prototype, 'run'), vi.spyOn(AsyncLocalStorage.prototype, 'enterWith')]
    try {
      expect(await s.ok('read', { file_path: 'fr.txt' })).toContain('[The file is in windows-1252')
      await s.ok('edit', { file_path: 'fr.txt', old_string: 'très ancien', new_string: 'fort ancien' })
      await s.ok('multi_edit', { file_path: 'fr.txt', edits: [{ old_string: 'crêpes', new_string: 'galettes' }] })
      await s.ok('write', { file_path: 'fr.txt', content: 'déjà vu\n' })
      expect(entered.map((spy) => spy.mock.calls.length)).toEqual([0, 0])
    } finally {
      for (const spy of entered) spy.mockRestore()
    }
    expect((await s.bytes('fr.txt'))!.equals(iconv.encode('déjà vu\r\n', 'windows-1252'))).toBe(true)
  })

  it('uses defaultEncoding when the detector cannot decide', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true, defaultEncoding: 'windows-1252' } })
    await s.put('short.txt', iconv.encode('ab\xe9\n', 'latin1'))
    expect(await s.ok('read', { file_path: 'short.txt' })).toContain('     1\tabé')
  })
})

describe('refusals of files that are not UTF-8 say what the tools in force read', () => {
  it('sends an edit of an unread Windows-1252 or UTF-16 file to read it first when detection is on, and then the edit works', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true } })
    await s.put('fr.txt', iconv.encode(FRENCH, 'windows-1252'))
    await s.put('u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('hello\r\n', 'utf-16le')]))
    for (const [file, from, to] of [['fr.txt', 'très', 'fort'], ['u16.txt', 'hello', 'bye']] as const) {
      const refused = await s.call('edit', { file_path: file, old_string: from, new_string: to })
      expect(refused.error?.code, file).toBe('FS_NOT_OBSERVED')
      expect(refused.content[0]!.text).toBe(`${s.path(file)} has not been read in this session (the dsh \`read\` tool shows the file); read the file, then retry`)
      await s.ok('read', { file_path: file })
      await s.ok('edit', { file_path: file, old_string: from, new_string: to })
    }
    expect((await s.bytes('fr.txt'))!.equals(iconv.encode(FRENCH.replace('très', 'fort'), 'windows-1252'))).toBe(true)
  })

  it('keeps refusing such an edit as not UTF-8 text when detection is off', async () => {
    s = await stack({ policy: true })
    await s.put('fr.txt', iconv.encode(FRENCH, 'windows-1252'))
    const refused = await s.call('edit', { file_path: 'fr.txt', old_string: 'très', new_string: 'fort' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(refused.content[0]!.text).toBe(`${s.path('fr.txt')} is not UTF-8 text; these tools show and change UTF-8 text only: pass the path of a text file.`)
  })

  it.each([
    [{}, 'these tools show and change UTF-8 text only: pass the path of a text file.'],
    [{ detectEncodings: true }, 'these tools show and change text (UTF-8, UTF-16 or a legacy encoding) only: pass the path of a text file.'],
    [{ readMedia: true }, 'these tools change UTF-8 text only: pass the path of a text file.'],
    [{ detectEncodings: true, readMedia: true }, 'these tools change text (UTF-8, UTF-16 or a legacy encoding) only: pass the path of a text file.'],
  ])('names what the tools change when refusing an edit of a binary file (config %j)', async (config, remedy) => {
    s = await stack({ policy: true, config })
    await s.put('data.bin', Uint8Array.of(1, 2, 0, 3, 10))
    const refused = await s.call('edit', { file_path: 'data.bin', old_string: 'a', new_string: 'b' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(refused.content[0]!.text).toBe(`${s.path('data.bin')} is a binary file (NUL byte at offset 2), not text; ${remedy}`)
  })

  it.each([
    [{}, 'these tools show and change UTF-8 text only: pass the path of a text file'],
    [{ readMedia: true }, 'these tools show UTF-8 text, images (PNG, JPEG, GIF, WebP) and PDFs only: pass the path of one of those'],
    [{ detectEncodings: true }, 'these tools show and change text (UTF-8, UTF-16 or a legacy encoding) only: if this is text in an encoding the tool could not tell, '
      + `call the dsh \`read\` tool again with encoding set to it (supported: ${SUPPORTED_ENCODINGS.join(', ')}); otherwise pass the path of a text file`],
  ])('names what the tools show when refusing a read of a binary file (config %j)', async (config, remedy) => {
    s = await stack({ policy: true, config })
    await s.put('data.bin', Uint8Array.of(1, 2, 0, 3, 10))
    const refused = await s.call('read', { file_path: 'data.bin' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(refused.content[0]!.text).toBe(`${s.path('data.bin')} is not UTF-8 text: binary data (NUL byte at offset 2); ${remedy}`)
  })

  it('names the encoding argument when a file is not exactly text in the encoding named, and another encoding then reads it', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true } })
    await s.put('ja.txt', iconv.encode(JAPANESE, 'shift_jis'))
    const refused = await s.call('read', { file_path: 'ja.txt', encoding: 'utf-16le' })
    expect(refused.error?.code).toBe('FS_NOT_TEXT')
    expect(refused.content[0]!.text).toMatch(/nor exactly utf-16le text.*call the dsh `read` tool again with encoding set to it \(supported: [^)]*euc-kr\); otherwise pass the path of a text file$/)
    // The names it offers are ones a call can pass for this file: never UTF-16 again.
    expect(refused.content[0]!.text.split('supported:')[1]).not.toMatch(/utf-16/)
    expect(await s.ok('read', { file_path: 'ja.txt', encoding: 'shift_jis' })).toContain('吾輩は猫である')
  })
})

/** What the model sees of legacy encodings, pinned like the main flows (docs/tools.md quotes it). */
it('pins what the model sees of files in legacy encodings', async () => {
  s = await stack({ policy: true, config: { detectEncodings: true } })
  const lines: string[] = []
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await s.call(name, args)
    const status = result.isError ? `error ${result.error?.code ?? ''}`.trim() : 'ok'
    lines.push(`>>> ${name} ${JSON.stringify(args)}`, `<<< ${status}`, result.content.map((part) => part.text).join(''), '')
  }
  await s.put('notes-1252.txt', iconv.encode("Le château de la forêt était très ancien.\r\nÀ l'été, on mangeait des crêpes.\r\n", 'windows-1252'))
  await call('read', { file_path: 'notes-1252.txt' })
  await call('edit', { file_path: 'notes-1252.txt', old_string: 'des crêpes', new_string: 'des crêpes au café' })
  await call('edit', { file_path: 'notes-1252.txt', old_string: 'des crêpes', new_string: 'des crêpes 🥞' })
  await s.put('short.txt', iconv.encode('ab\xe9\n', 'latin1'))
  await call('read', { file_path: 'short.txt' })
  await call('read', { file_path: 'short.txt', encoding: 'iso-8859-1' })
  // Three Hangul syllables: valid EUC-KR, EUC-JP and GB18030 alike, and far too short to tell.
  await s.put('ko.txt', iconv.encode('한국어\n', 'euc-kr'))
  await call('read', { file_path: 'ko.txt' })
  await call('read', { file_path: 'ko.txt', encoding: 'euc-kr' })
  await expect(lines.join('\n').replaceAll(s.dir, '<tmp>')).toMatchFileSnapshot('./__transcripts__/encoding-flows.txt')
})
