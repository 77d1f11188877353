import iconv from 'iconv-lite'
import { afterEach, describe, expect, it } from 'vitest'
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

  it('uses defaultEncoding when the detector cannot decide', async () => {
    s = await stack({ policy: true, config: { detectEncodings: true, defaultEncoding: 'windows-1252' } })
    await s.put('short.txt', iconv.encode('ab\xe9\n', 'latin1'))
    expect(await s.ok('read', { file_path: 'short.txt' })).toContain('     1\tabé')
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
