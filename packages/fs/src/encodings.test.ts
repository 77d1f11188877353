import { describe, expect, it } from 'vitest'
import { acrossCuts, corpusBytes, CUT_OFFSETS, ENCODING_CORPUS, wideOffset } from './conformance/encoding-corpus'
import { decodeText } from './decode'
import type { FsTextDecoding } from './decoding'
import { DETECT_MIN_CONFIDENCE, detectEncoding, guessesOf } from './detect'
import { FsError } from './errors'
import { planEdit, planWrite } from './plan'

/** How a caller decodes a corpus file: by detection when it can be detected, else by naming its encoding. */
const decodingFor = (file: (typeof ENCODING_CORPUS)[number]): FsTextDecoding => file.detected === undefined ? { encoding: file.encoding } : { detect: true }
const decodeAs = (file: (typeof ENCODING_CORPUS)[number], bytes: Uint8Array) => decodeText(bytes, file.name, decodingFor(file))

/** A deterministic stream of bytes 1–255 (xorshift32): the "random non-NUL bytes" of the detector's bound. */
function randomBytes(seed: number, length: number): Uint8Array {
  let x = seed || 1
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = 1 + ((x >>> 0) % 255)
  }
  return out
}

describe('legacy encodings', () => {
  const corpus = [...ENCODING_CORPUS, ...ENCODING_CORPUS.map(acrossCuts)]

  it('puts a multibyte character across every cut of the long corpus files', () => {
    for (const file of corpus.filter((f) => f.name.includes('-long'))) {
      const unit = file.encoding.startsWith('utf-16') ? 2 : 1
      for (const cut of CUT_OFFSETS) expect(wideOffset(file, cut - 2 * unit), `${file.name} at ${cut}`).toBe(cut - unit)
    }
  })

  it('decodes every corpus file to its text and names its encoding', () => {
    for (const file of corpus) {
      const decoded = decodeAs(file, corpusBytes(file))
      expect(decoded.text, file.name).toBe(file.text)
      expect(decoded.encoding, file.name).toBe(file.encoding)
      expect(decoded.bom, file.name).toBe(file.bom)
    }
  })

  it('detects the natural-language files of a few hundred bytes above the bound', () => {
    for (const file of ENCODING_CORPUS.filter((f) => f.detected !== undefined && !f.bom)) {
      const found = detectEncoding(corpusBytes(file)).found
      expect(found?.encoding, file.name).toBe(file.detected)
      expect(found!.confidence).toBeGreaterThanOrEqual(DETECT_MIN_CONFIDENCE)
    }
  })

  it('never detects an encoding in 512 random non-NUL bytes (1,000 samples)', () => {
    let highest = 0
    for (let seed = 1; seed <= 1000; seed++) {
      const bytes = randomBytes(seed * 7919, 512)
      expect(detectEncoding(bytes).found, `seed ${seed}`).toBeUndefined()
      highest = Math.max(highest, guessesOf(bytes)[0]?.confidence ?? 0)
      expect(() => decodeText(bytes, 'random.bin', { detect: true })).toThrow(FsError)
    }
    // The detector's raw confidence stays far below the bound, even before the exact-decoding check.
    expect(highest).toBeLessThan(DETECT_MIN_CONFIDENCE)
  })

  it('refuses a file that is not UTF-8 as before when no decoding is in effect', () => {
    for (const file of ENCODING_CORPUS) {
      expect(() => decodeText(corpusBytes(file), file.name), file.name).toThrow(/is not UTF-8 text/)
    }
  })

  it('leaves every corpus file byte-identical after a no-op edit', () => {
    for (const file of corpus) {
      const bytes = corpusBytes(file)
      const line = file.text.split(/\r?\n/)[1]!
      const plan = planEdit(bytes, { oldString: line, newString: line, replaceAll: false }, file.name, undefined, undefined, decodingFor(file))
      expect(Buffer.compare(Buffer.from(plan.bytes), Buffer.from(bytes)), file.name).toBe(0)
    }
  })

  it('changes exactly the bytes of the one line an edit rewrites, in the file encoding', () => {
    for (const file of corpus) {
      const bytes = corpusBytes(file)
      const old = file.text.split(/\r?\n/)[1]!
      const replacement = `${old.slice(0, 3)}${file.wide}${file.wide} edited`
      const plan = planEdit(bytes, { oldString: old, newString: replacement, replaceAll: false }, file.name, undefined, undefined, decodingFor(file))
      const before = Buffer.from(bytes)
      const after = Buffer.from(plan.bytes)
      const start = corpusBytes({ ...file, text: file.text.slice(0, file.text.indexOf(old)) }).length
      const end = corpusBytes({ ...file, text: file.text.slice(0, file.text.indexOf(old) + old.length) }).length
      const middle = corpusBytes({ encoding: file.encoding, bom: false, text: replacement })
      expect(after.subarray(0, start).equals(before.subarray(0, start)), file.name).toBe(true)
      expect(after.subarray(start, start + middle.length).equals(Buffer.from(middle)), file.name).toBe(true)
      expect(after.subarray(start + middle.length).equals(before.subarray(end)), file.name).toBe(true)
    }
  })

  it('keeps the encoding and BOM of a file a write replaces', () => {
    for (const file of ENCODING_CORPUS) {
      const plan = decodeAsWrite(file, `new ${file.wide}`)
      expect(Buffer.from(plan.bytes).equals(Buffer.from(corpusBytes({ ...file, text: `new ${file.wide}` }))), file.name).toBe(true)
    }
  })

  it('refuses a character the encoding cannot hold, naming it and its line', () => {
    const file = ENCODING_CORPUS.find((f) => f.encoding === 'shift_jis')!
    const edit = () => planEdit(corpusBytes(file), { oldString: '名前はまだ無い', newString: 'Ωμ 🐈', replaceAll: false }, file.name, undefined, undefined, { detect: true })
    expect(edit).toThrow(expect.objectContaining({ code: 'FS_NOT_ENCODABLE', unencodable: { encoding: 'shift_jis', character: '🐈', line: 1, column: 15 } }))
    expect(edit).toThrow('U+1F408')
  })
})

function decodeAsWrite(file: (typeof ENCODING_CORPUS)[number], content: string) {
  return planWrite(corpusBytes(file), content, file.name, decodingFor(file))
}

