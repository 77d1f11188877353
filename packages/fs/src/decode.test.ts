import { describe, expect, it } from 'vitest'
import { FsError } from './errors'
import { decodeText, Utf8StreamDecoder } from './decode'

const utf8 = (text: string) => new TextEncoder().encode(text)

describe('decodeText', () => {
  it('strips a BOM and reports it', () => {
    expect(decodeText(Uint8Array.of(0xef, 0xbb, 0xbf, 0x68, 0x69))).toEqual({ text: 'hi', bom: true })
    expect(decodeText(utf8('hi'))).toEqual({ text: 'hi', bom: false })
  })

  it('names binary data and its offset', () => {
    const error = (() => { try { decodeText(Uint8Array.of(0x61, 0x62, 0x00), 'x.bin') } catch (e) { return e } })()
    expect(FsError.is(error, 'FS_NOT_TEXT')).toBe(true)
    expect((error as FsError).message).toContain('offset 2')
  })

  it('accepts a NUL byte past the sniff window as text', () => {
    const bytes = Uint8Array.of(...utf8('a'.repeat(9000)), 0x00)
    expect(decodeText(bytes).text.length).toBe(9001)
  })

  it('rejects a truncated multibyte character at the end', () => {
    expect(() => decodeText(Uint8Array.of(0x61, 0xe2, 0x82))).toThrowError(expect.objectContaining({ code: 'FS_NOT_TEXT', message: expect.stringContaining('truncated') }))
  })
})

describe('Utf8StreamDecoder', () => {
  it('decodes the same text whatever the chunking, BOM and multibyte splits included', () => {
    const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('é中🎉 line\r\nnext'))
    for (let size = 1; size <= 7; size++) {
      const decoder = new Utf8StreamDecoder()
      let text = ''
      for (let i = 0; i < bytes.length; i += size) text += decoder.push(bytes.subarray(i, i + size))
      text += decoder.end()
      expect(text).toBe('é中🎉 line\r\nnext')
      expect(decoder.bom).toBe(true)
    }
  })

  it('finds a NUL in the sniff window across chunks', () => {
    const decoder = new Utf8StreamDecoder()
    decoder.push(utf8('a'.repeat(5000)))
    expect(() => decoder.push(Uint8Array.of(0x61, 0x00))).toThrowError(expect.objectContaining({ code: 'FS_NOT_TEXT', message: expect.stringContaining('NUL byte at offset 5001') }))
  })

  it('keeps a short file that is only part of a BOM', () => {
    const decoder = new Utf8StreamDecoder()
    expect(decoder.push(Uint8Array.of(0xef))).toBe('')
    expect(() => decoder.end()).toThrowError(expect.objectContaining({ code: 'FS_NOT_TEXT' }))
  })
})

describe('Utf8StreamDecoder.skip', () => {
  const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('é中🎉 skipped\nshown é中🎉'))
  const cut = bytes.indexOf(0x0a) + 1

  it('validates skipped bytes and decodes the rest identically, whatever the chunking', () => {
    for (let size = 1; size <= 9; size++) {
      const decoder = new Utf8StreamDecoder()
      let text = ''
      for (let i = 0; i < bytes.length; i += size) {
        const chunk = bytes.subarray(i, Math.min(i + size, bytes.length))
        const split = Math.min(Math.max(cut - i, 0), chunk.length)
        decoder.skip(chunk.subarray(0, split))
        text += decoder.push(chunk.subarray(split))
      }
      expect(text + decoder.end()).toBe('shown é中🎉')
      expect(decoder.bom).toBe(true)
    }
  })

  it('finds invalid UTF-8, binary data and a truncated end in skipped bytes', () => {
    const code = (fn: () => void) => { try { fn() } catch (error) { return FsError.is(error) ? error.code : 'other' } return 'none' }
    expect(code(() => new Utf8StreamDecoder().skip(Uint8Array.of(0x61, 0xff, 0x0a)))).toBe('FS_NOT_TEXT')
    expect(code(() => new Utf8StreamDecoder().skip(Uint8Array.of(0x61, 0x00)))).toBe('FS_NOT_TEXT')
    expect(code(() => { const d = new Utf8StreamDecoder(); d.skip(Uint8Array.of(0xe4, 0xb8)); d.skip(Uint8Array.of(0x41)) })).toBe('FS_NOT_TEXT')
    expect(code(() => { const d = new Utf8StreamDecoder(); d.skip(Uint8Array.of(0x61, 0xe4, 0xb8)); d.end() })).toBe('FS_NOT_TEXT')
  })

  it('refuses a byte that cannot start or continue a character as soon as it is skipped, not at the end', () => {
    const code = (fn: () => void) => { try { fn() } catch (error) { return FsError.is(error) ? error.code : 'other' } return 'none' }
    // A readers that resumes after these bytes never sees them again: each must fail in its own skip.
    expect(code(() => new Utf8StreamDecoder().skip(Uint8Array.of(0x61, 0xff)))).toBe('FS_NOT_TEXT')
    expect(code(() => new Utf8StreamDecoder().skip(Uint8Array.of(0x61, 0xf8)))).toBe('FS_NOT_TEXT')
    expect(code(() => { const d = new Utf8StreamDecoder(); d.skip(Uint8Array.of(0xf0, 0x9f)); d.skip(Uint8Array.of(0x0a)) })).toBe('FS_NOT_TEXT')
    expect(code(() => { const d = new Utf8StreamDecoder(); d.skip(Uint8Array.of(0xf0)); d.skip(Uint8Array.of(0x9f)); d.skip(Uint8Array.of(0x8e, 0x89)) })).toBe('none')
  })
})

describe('Utf8StreamDecoder resumed at an offset', () => {
  it('looks for no BOM past the start and sniffs only what is left of the first 8 KiB', () => {
    const bom = new Utf8StreamDecoder(undefined, { offset: 100 })
    expect(bom.push(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61)) + bom.end()).toBe('\ufeffa')
    expect(() => new Utf8StreamDecoder(undefined, { offset: 8000 }).skip(new Uint8Array(300).fill(0x20).fill(0, 100, 101))).toThrow(/NUL byte at offset 8100/)
    expect(() => new Utf8StreamDecoder(undefined, { offset: 8000 }).skip(new Uint8Array(300).fill(0x20).fill(0, 250, 251))).not.toThrow()
    expect(() => new Utf8StreamDecoder(undefined, { offset: 8192 }).skip(Uint8Array.of(0x61, 0))).not.toThrow()
  })
})

describe('Utf8StreamDecoder with a reused chunk buffer', () => {
  it('keeps its own copy of a character split across chunks', () => {
    const bytes = Buffer.from('ab€cd\n€€ef')
    for (let size = 1; size <= 5; size++) {
      const shared = Buffer.alloc(size)
      const skipper = new Utf8StreamDecoder()
      const pusher = new Utf8StreamDecoder()
      let text = ''
      for (let i = 0; i < bytes.length; i += size) {
        const n = bytes.copy(shared, 0, i, i + size)
        skipper.skip(shared.subarray(0, n))
        text += pusher.push(shared.subarray(0, n))
        shared.fill(0xff) // the provider reads the next chunk into the same memory
      }
      skipper.end()
      expect(text + pusher.end()).toBe('ab€cd\n€€ef')
    }
  })
})
