import { describe, expect, it } from 'vitest'
import { multipartBoundary, parseMultipart } from './multipart.js'

const body = (boundary: string, parts: string[]) =>
  Buffer.from(`--${boundary}\r\n${parts.join(`\r\n--${boundary}\r\n`)}\r\n--${boundary}--\r\n`, 'latin1')

describe('multipart parsing', () => {
  it('reads the boundary, bare or quoted, only from multipart/form-data', () => {
    expect(multipartBoundary('multipart/form-data; boundary=----abc')).toBe('----abc')
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe('a b')
    expect(multipartBoundary('application/octet-stream')).toBeUndefined()
  })

  it('splits parts and keeps their bytes exactly, CRLFs and all', () => {
    const parts = parseMultipart(body('XY', [
      'Content-Disposition: form-data; name="file"; filename="/a/one.txt"\r\n\r\nline1\r\nline2\r\n',
      'Content-Disposition: form-data; name="file"; filename="two"\r\nContent-Type: application/octet-stream\r\n\r\n\xff\x00',
    ]), 'XY')
    expect(parts.map((p) => [p.name, p.filename])).toEqual([['file', '/a/one.txt'], ['file', 'two']])
    expect(parts[0]!.data.toString('latin1')).toBe('line1\r\nline2\r\n')
    expect([...parts[1]!.data]).toEqual([0xff, 0x00])
  })

  it('undoes backslash escapes in filenames but leaves percent escapes alone, as Go does', () => {
    const [part] = parseMultipart(body('B', ['Content-Disposition: form-data; name="file"; filename="a\\"b%22c"\r\n\r\nx']), 'B')
    expect(part!.filename).toBe('a"b%22c')
  })

  it('rejects a body cut off before its closing delimiter', () => {
    expect(() => parseMultipart(Buffer.from('--B\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc'), 'B')).toThrow(/truncated/)
  })
})
