import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { planWrite } from './plan'

describe('planWrite', () => {
  it('publishes the same bytes whether or not it decodes the old file', () => {
    const piece = fc.constantFrom('a', 'é', '\n', '\r\n', '\r', '\u0000')
    const bytes = fc.oneof(
      fc.array(piece, { maxLength: 12 }).map((parts) => new TextEncoder().encode(parts.join(''))),
      fc.uint8Array({ maxLength: 12 }),
    )
    fc.assert(
      fc.property(fc.boolean(), bytes, fc.array(piece, { maxLength: 8 }), (bom, body, content) => {
        const previous = bom ? Uint8Array.of(0xef, 0xbb, 0xbf, ...body) : body
        const text = content.join('')
        const decoded = planWrite(previous, text)
        const inspected = planWrite(previous, text, undefined, { before: false })
        expect([...inspected.bytes]).toEqual([...decoded.bytes])
        expect(inspected.after).toBe(decoded.after)
        expect(inspected.before).toBeNull()
      }),
      { numRuns: 500 },
    )
  })
})
