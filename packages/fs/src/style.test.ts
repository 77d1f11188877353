import { describe, expect, it } from 'vitest'
import { countLineEndings, dominantLineEnding } from './line-endings'
import { prepareOverwrite } from './style'
import { encodeText } from './utf8'

describe('line endings', () => {
  it('counts CRLF apart from bare LF and picks the dominant one', () => {
    expect(countLineEndings('a\r\nb\nc\r\n\r')).toEqual({ crlf: 2, lf: 1 })
    expect(dominantLineEnding('a\r\nb\nc\r\n')).toBe('\r\n')
    expect(dominantLineEnding('a\r\nb\n')).toBe('\n')
  })

  it('keeps BOM and CRLF on overwrite only under the documented rule', () => {
    const crlf = { text: 'a\r\nb\r\n', bom: true }
    expect(prepareOverwrite(crlf, 'x\ny')).toEqual({ text: 'x\r\ny', bom: true })
    expect(prepareOverwrite(crlf, 'x\r\ny\n')).toEqual({ text: 'x\r\ny\n', bom: true })
    expect(prepareOverwrite({ text: 'a\r\nb\n', bom: false }, 'x\ny')).toEqual({ text: 'x\ny', bom: false })
    expect(prepareOverwrite(crlf, '\ufeffx')).toEqual({ text: 'x', bom: true })
    expect(prepareOverwrite(null, 'x\ny')).toEqual({ text: 'x\ny', bom: false })
  })

  it('encodes with and without a BOM', () => {
    expect([...encodeText('a', true)]).toEqual([0xef, 0xbb, 0xbf, 0x61])
    expect([...encodeText('a', false)]).toEqual([0x61])
  })
})
