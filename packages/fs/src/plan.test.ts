import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { planStyledWrite, planWrite } from './plan'
import { TextStyleProbe } from './style'

describe('planStyledWrite with TextStyleProbe', () => {
  it('publishes what planWrite publishes for any text file, whatever the chunking', () => {
    const piece = fc.constantFrom('a', 'é', '\n', '\r\n', '\r')
    fc.assert(
      fc.property(fc.boolean(), fc.array(piece, { maxLength: 12 }), fc.array(piece, { maxLength: 8 }), fc.integer({ min: 1, max: 5 }), (bom, body, content, size) => {
        const previous = Uint8Array.of(...(bom ? [0xef, 0xbb, 0xbf] : []), ...new TextEncoder().encode(body.join('')))
        const text = content.join('')
        const probe = new TextStyleProbe(text)
        let done = false
        let at = 0
        for (; at < previous.length && !done; at += size) done = probe.push(previous.subarray(at, at + size))
        const styled = planStyledWrite(probe.end(at >= previous.length && !done), text)
        expect([...styled.bytes]).toEqual([...planWrite(previous, text).bytes])
      }),
      { numRuns: 500 },
    )
  })

  it('treats bytes that are not text as no style, like planWrite', () => {
    const probe = new TextStyleProbe('x\ny')
    expect(probe.push(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61, 0x00, 0x0d, 0x0a))).toBe(true)
    expect(planStyledWrite(probe.end(false), 'x\ny').bytes).toEqual(planWrite(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61, 0x00, 0x0d, 0x0a), 'x\ny').bytes)
  })
})
