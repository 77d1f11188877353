import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { changedRegion } from './lines'
import { spliceLiteral } from './edit'
import { firstUnseen, seenAll, seenCarried, seenEverything, seenLineCount, seenUnion } from './seen'
import type { FsSeenLines } from './types'

describe('seenUnion', () => {
  it('joins overlapping and touching ranges and keeps the later total', () => {
    const a: FsSeenLines = { ranges: [[1, 3], [10, 12]], total: 20 }
    expect(seenUnion(a, { ranges: [[4, 9]], total: 20 })).toEqual({ ranges: [[1, 12]], total: 20 })
    expect(seenUnion(a, { ranges: [[2, 2]] })).toEqual({ ranges: [[1, 3], [10, 12]], total: 20 })
  })

  it('makes a line whole once its parts run from its first character to its last', () => {
    const first = seenUnion(undefined, { ranges: [], parts: [{ line: 5, from: 1, to: 2000, end: false }] })
    expect(firstUnseen(seenUnion(first, { ranges: [[1, 4]] }))).toEqual({ line: 5, column: 2001 })
    const rest = seenUnion(first, { ranges: [[1, 4]], parts: [{ line: 5, from: 2001, to: 2500, end: true }], total: 5 })
    expect(rest).toEqual({ ranges: [[1, 5]], total: 5 })
    expect(seenAll(rest)).toBe(true)
  })

  it('does not join parts with a gap between them', () => {
    const seen = seenUnion({ ranges: [], parts: [{ line: 1, from: 1, to: 10, end: false }] }, { ranges: [], parts: [{ line: 1, from: 20, to: 30, end: true }], total: 1 })
    expect(seenAll(seen)).toBe(false)
    expect(firstUnseen(seen)).toEqual({ line: 1, column: 11 })
  })
})

describe('firstUnseen and seenAll', () => {
  it('needs the total known before it calls a version seen', () => {
    expect(seenAll({ ranges: [[1, 2000]] })).toBe(false)
    expect(firstUnseen({ ranges: [[1, 2000]] })).toEqual({ line: 2001 })
    expect(seenAll({ ranges: [[1, 2000]], total: 2000 })).toBe(true)
    expect(seenAll({ ranges: [], total: 0 })).toBe(true)
    expect(seenAll(undefined)).toBe(false)
  })

  it('names the first line not seen, even before a later seen range', () => {
    expect(firstUnseen({ ranges: [[10, 14]], total: 3000 })).toEqual({ line: 1 })
    expect(firstUnseen({ ranges: [[1, 9], [11, 3000]], total: 3000 })).toEqual({ line: 10 })
    expect(seenLineCount({ ranges: [[1, 9], [11, 3000]] })).toBe(2999)
  })

  it('writing everything is seeing everything', () => {
    expect(seenAll(seenEverything(3))).toBe(true)
    expect(seenAll(seenEverything(0))).toBe(true)
  })
})

describe('seenCarried', () => {
  it('moves the lines outside a change by what the change added and removed', () => {
    // Line 3 of 10 became two lines; everything was seen.
    expect(seenCarried({ ranges: [[1, 10]], total: 10 }, [{ line: 3, removedLines: 1, addedLines: 2 }])).toEqual({ ranges: [[1, 11]], total: 11 })
    // Only lines 5-8 seen; lines 1-2 removed above them.
    expect(seenCarried({ ranges: [[5, 8]], total: 10 }, [{ line: 1, removedLines: 2, addedLines: 0 }])).toEqual({ ranges: [[3, 6]], total: 8 })
  })

  it('counts a change as seen only when it only added lines or every line it replaced was seen', () => {
    expect(seenCarried({ ranges: [[1, 2]], total: 10 }, [{ line: 5, removedLines: 1, addedLines: 1 }]).ranges).toEqual([[1, 2]])
    expect(seenCarried({ ranges: [[1, 2]], total: 10 }, [{ line: 5, removedLines: 0, addedLines: 3 }]).ranges).toEqual([[1, 2], [5, 7]])
    expect(seenCarried({ ranges: [[4, 6]], total: 10 }, [{ line: 5, removedLines: 1, addedLines: 4 }]).ranges).toEqual([[4, 9]])
  })

  it('drops the parts of replaced lines and moves the others', () => {
    const seen: FsSeenLines = { ranges: [], parts: [{ line: 2, from: 1, to: 9, end: false }, { line: 8, from: 1, to: 9, end: false }] }
    expect(seenCarried(seen, [{ line: 2, removedLines: 1, addedLines: 3 }]).parts).toEqual([{ line: 10, from: 1, to: 9, end: false }])
  })

  it('agrees with the lines themselves: a carried line is a seen old line or one the edit wrote', () => {
    // Every line of the old text is unique (o1, o2, …), every line the edit writes too (n1, n2, …):
    // a line said seen after the edit must be a seen old line moved, or the edit's own, and when
    // everything was seen before, everything is seen after.
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 12 }), fc.nat(11), fc.nat(3), fc.nat(3), fc.array(fc.tuple(fc.nat(12), fc.nat(4)), { maxLength: 4 }), fc.boolean(),
      (count, at, length, added, windows, all) => {
        const lines = Array.from({ length: count }, (_, i) => `o${i + 1}`)
        const text = `${lines.join('\n')}\n`
        const start = Math.min(at, count - 1)
        const oldString = `${lines.slice(start, start + length + 1).join('\n')}\n`
        const newString = Array.from({ length: added }, (_, i) => `n${i + 1}\n`).join('')
        const result = spliceLiteral(text, { oldString, newString, replaceAll: false })
        const ranges = all ? [[1, count] as [number, number]] : windows.map(([first, span]): [number, number] => [first + 1, first + 1 + span])
        const seen = seenUnion(undefined, { ranges, total: count })
        const carried = seenCarried(seen, result.lines.changes)
        const after = result.text.split('\n').slice(0, -1)
        expect(carried.total).toBe(after.length)
        if (all) expect(seenAll(carried)).toBe(true)
        for (const [first, last] of carried.ranges) {
          for (let n = first; n <= last; n++) {
            const line = after[n - 1]
            expect(line, `line ${n} is past the end`).toBeDefined()
            const old = /^o(\d+)$/.exec(line!)
            if (old === null) continue
            const number = Number(old[1])
            expect(seen.ranges.some(([from, to]) => from <= number && number <= to), `line ${n} (${line}) was never seen`).toBe(true)
          }
        }
      },
    ))
  })

  it('carries everything through a rewrite region that replaced only seen lines', () => {
    const before = 'a\nb\nc\nd\n'
    const after = 'a\nX\nY\nZ\nd\n'
    const region = changedRegion(before, after)!
    expect(seenAll(seenCarried({ ranges: [[1, 4]], total: 4 }, [region]))).toBe(true)
    expect(seenCarried({ ranges: [[1, 3]], total: 4 }, [region])).toEqual({ ranges: [[1, 4]], total: 5 })
  })
})
