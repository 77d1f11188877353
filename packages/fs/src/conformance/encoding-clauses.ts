import { expect, it } from 'vitest'
import type { FsTextDecoding } from '../decoding'
import { acrossCuts, corpusBytes, type CorpusFile, ENCODING_CORPUS } from './encoding-corpus'
import { expectFsError, type Harness, type ClauseGroup } from './harness'

const same = (a: Uint8Array | undefined, b: Uint8Array) => a !== undefined && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0

/** How a caller decodes a corpus file: by detection when it can be detected, else by naming its encoding. */
function decodingFor(file: CorpusFile): FsTextDecoding {
  return file.detected === undefined ? { encoding: file.encoding } : { detect: true }
}

/** The corpus the clauses run: every file, and the long form of two (a multibyte character across each cut). */
const FILES: readonly CorpusFile[] = [
  ...ENCODING_CORPUS,
  ...ENCODING_CORPUS.filter((file) => file.encoding === 'shift_jis' || file.encoding === 'utf-16le').map(acrossCuts),
]

export const encodings: ClauseGroup = { title: 'legacy encodings, byte-exact', clauses: encodingClauses }

export function encodingClauses(h: Harness): void {
  it('reads a file in every supported encoding with a text decoding, and names it on that decoding', async () => {
    for (const file of FILES) {
      await h.external.write(file.name, corpusBytes(file))
      const decoding = decodingFor(file)
      const target = await h.target(file.name)
      expect(await h.fs.readText(target, { decoding }), file.name).toBe(file.text)
      expect(decoding.decided, file.name).toBe(file.encoding)
      const inspecting = decodingFor(file)
      const inspected = await h.fs.inspect(h.fixture.path(file.name), { textUpTo: 1 << 20, decoding: inspecting })
      expect(inspected.text, file.name).toBe(file.text)
      expect(inspecting.decided, file.name).toBe(file.encoding)
    }
  })

  it('refuses a file that is not UTF-8 with FS_NOT_TEXT when the call passes no text decoding', async () => {
    const file = ENCODING_CORPUS.find((f) => f.encoding === 'windows-1252')!
    await h.external.write(file.name, corpusBytes(file))
    const target = await h.target(file.name)
    await expectFsError(h.fs.readText(target), 'FS_NOT_TEXT')
    await expectFsError(h.fs.readText(target, new AbortController().signal), 'FS_NOT_TEXT')
    await expectFsError(h.fs.editText(target, { oldString: 'château', newString: 'chateau', replaceAll: false }), 'FS_NOT_TEXT')
    expect(same(await h.external.read(file.name), corpusBytes(file))).toBe(true)
  })

  it('refuses random bytes under detection, naming no encoding it guessed', async () => {
    const bytes = Uint8Array.from({ length: 512 }, (_, i) => 1 + ((i * 7919 + 13) % 251))
    await h.external.write('noise.bin', bytes)
    const error = await expectFsError(h.fs.readText(await h.target('noise.bin'), { decoding: { detect: true } }), 'FS_NOT_TEXT')
    expect(error.candidates).toBeDefined()
  })

  it('leaves every file byte-identical after a no-op edit and a no-op multi-edit', async () => {
    for (const file of FILES) {
      const bytes = corpusBytes(file)
      await h.external.write(file.name, bytes)
      const line = file.text.split(/\r?\n/)[1]!
      const target = await h.target(file.name)
      await h.fs.editText(target, { oldString: line, newString: line, replaceAll: false }, { decoding: decodingFor(file) })
      await h.fs.editTextMany(target, [{ oldString: line, newString: line, replaceAll: false }], { decoding: decodingFor(file) })
      expect(same(await h.external.read(file.name), bytes), file.name).toBe(true)
    }
  })

  it('changes exactly the bytes of the one line an edit rewrites, in the file encoding, and a new version', async () => {
    for (const file of FILES) {
      const bytes = corpusBytes(file)
      await h.external.write(file.name, bytes)
      const version = await h.version(file.name)
      const old = file.text.split(/\r?\n/)[1]!
      const replacement = `${file.wide} edited ${file.wide}`
      const decoding = decodingFor(file)
      const outcome = await h.fs.editText(await h.target(file.name), { oldString: old, newString: replacement, replaceAll: false }, { expected: { version }, decoding })
      expect(outcome.version).not.toBe(version)
      expect(decoding.decided, file.name).toBe(file.encoding)
      const expected = corpusBytes({ ...file, text: file.text.replace(old, replacement) })
      expect(same(await h.external.read(file.name), expected), file.name).toBe(true)
    }
  })

  it('refuses a stale edit of a legacy file before it decodes, and writes nothing', async () => {
    const file = ENCODING_CORPUS.find((f) => f.encoding === 'euc-kr')!
    await h.external.write(file.name, corpusBytes(file))
    const version = await h.version(file.name)
    await h.external.write(file.name, corpusBytes({ ...file, text: `${file.text}more\n` }))
    const edit = h.fs.editText(await h.target(file.name), { oldString: '1:', newString: '0:', replaceAll: false }, { expected: { version }, decoding: { detect: true } })
    await expectFsError(edit, 'FS_STALE_VERSION')
    expect(same(await h.external.read(file.name), corpusBytes({ ...file, text: `${file.text}more\n` }))).toBe(true)
  })

  it('keeps the encoding, BOM and CRLF of a file a write replaces', async () => {
    for (const file of ENCODING_CORPUS) {
      await h.external.write(file.name, corpusBytes(file))
      const crlf = file.text.includes('\r\n')
      await h.fs.writeText(await h.target(file.name), `one ${file.wide}\ntwo\n`, { decoding: decodingFor(file) })
      const expected = corpusBytes({ ...file, text: crlf ? `one ${file.wide}\r\ntwo\r\n` : `one ${file.wide}\ntwo\n` })
      expect(same(await h.external.read(file.name), expected), file.name).toBe(true)
    }
  })

  it('refuses with FS_NOT_ENCODABLE a character the encoding cannot hold, and writes nothing', async () => {
    const file = ENCODING_CORPUS.find((f) => f.encoding === 'windows-1252')!
    const bytes = corpusBytes(file)
    await h.external.write(file.name, bytes)
    const target = await h.target(file.name)
    const edit = h.fs.editText(target, { oldString: 'château', newString: 'château 城', replaceAll: false }, { decoding: { detect: true } })
    expect((await expectFsError(edit, 'FS_NOT_ENCODABLE')).unencodable).toMatchObject({ encoding: 'windows-1252', character: '城', line: 1 })
    await expectFsError(h.fs.writeText(target, 'Ωmega', { decoding: { detect: true } }), 'FS_NOT_ENCODABLE')
    expect(same(await h.external.read(file.name), bytes)).toBe(true)
  })
}
