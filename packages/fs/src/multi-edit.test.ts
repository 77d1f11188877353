import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { editIndexOf, FsError } from './errors'
import { FS_MAX_EDITS } from './limits'
import { FS_MAX_LINE_CHANGES } from './lines'
import { applyEdits, mapChanges } from './multi-edit'
import { planEdits } from './plan'

const edit = (oldString: string, newString: string, replaceAll = false) => ({ oldString, newString, replaceAll })

describe('applyEdits steps', () => {
  it('moves an earlier edit down by the lines a later edit added above it', () => {
    const applied = applyEdits('a\nb\nc\n', [edit('b', 'B'), edit('a', 'a\nx\ny')])
    expect(applied.text).toBe('a\nx\ny\nB\nc\n')
    expect(applied.steps).toEqual([
      { replacements: 1, changes: [{ line: 4, removedLines: 1, addedLines: 1 }] },
      { replacements: 1, changes: [{ line: 2, removedLines: 0, addedLines: 2 }] },
    ])
  })

  it('moves an earlier edit up by the lines a later edit removed above it', () => {
    const applied = applyEdits('a\nb\nc\nd\n', [edit('d', 'D'), edit('a\nb\n', '')])
    expect(applied.text).toBe('c\nD\n')
    expect(applied.steps[0]!.changes).toEqual([{ line: 2, removedLines: 1, addedLines: 1 }])
  })

  it('widens an earlier region that a later edit rewrote in part', () => {
    const applied = applyEdits('a\nb\nc\nd\n', [edit('b', 'B1\nB2'), edit('B2\nc', 'Z')])
    expect(applied.text).toBe('a\nB1\nZ\nd\n')
    expect(applied.steps.map((step) => step.changes)).toEqual([
      [{ line: 2, removedLines: 1, addedLines: 2 }],
      [{ line: 3, removedLines: 2, addedLines: 1 }],
    ])
  })

  it('reports every region of a replace_all step, and none for an edit of line endings only', () => {
    const applied = applyEdits('x\ny\nx\r\n', [edit('x', 'X', true), edit('y\n', 'y\r\n')])
    expect(applied.steps[0]).toEqual({ replacements: 2, changes: [{ line: 1, removedLines: 1, addedLines: 1 }, { line: 3, removedLines: 1, addedLines: 1 }] })
    expect(applied.steps[1]).toEqual({ replacements: 1, changes: [] })
  })

  it('keeps the occurrences of an ambiguous step on its error, with the step index', () => {
    let caught: unknown
    try {
      applyEdits('x = x\n', [edit('=', '=='), edit('x', 'y')])
    } catch (error) {
      caught = error
    }
    expect(FsError.is(caught, 'FS_AMBIGUOUS_EDIT')).toBe(true)
    expect(editIndexOf(caught)).toBe(1)
    expect((caught as FsError).occurrences).toEqual({ count: 2, lines: [1], truncated: false })
  })

  it('names, for every step, the final lines its new text is on (random edits of distinct lines)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 3, max: 30 }),
      fc.array(fc.record({ pick: fc.nat(), lines: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 8 }),
      (size, plan) => {
        const text = Array.from({ length: size }, (_, i) => `l${i}\n`).join('')
        const edits = []
        const markers: string[][] = []
        let current = text
        for (const [index, step] of plan.entries()) {
          // Only original lines are replaced, so every marker written survives to the final text.
          const originals = current.split('\n').filter((line) => /^l\d+$/.test(line))
          if (originals.length === 0) break
          const target = originals[step.pick % originals.length]!
          const written = Array.from({ length: step.lines }, (_, k) => `m${index}.${k}`)
          const replacement = written.map((line) => `${line}\n`).join('')
          edits.push(edit(`${target}\n`, replacement))
          markers.push(written)
          current = current.replace(`${target}\n`, replacement)
        }
        const applied = applyEdits(text, edits)
        expect(applied.text).toBe(current)
        const finalLines = applied.text.split('\n')
        for (const [index, written] of markers.entries()) {
          const changes = applied.steps[index]!.changes
          expect(changes).toHaveLength(1)
          const { line, addedLines } = changes[0]!
          expect(addedLines).toBe(written.length)
          expect(finalLines.slice(line - 1, line - 1 + addedLines)).toEqual(written)
        }
      },
    ))
  })
})

function failure(run: () => unknown): FsError {
  try {
    run()
  } catch (error) {
    if (FsError.is(error)) return error
    throw error
  }
  throw new Error('expected an FsError')
}

describe('the bounds of applyEdits', () => {
  it('refuses the step whose result would pass maxBytes, before building it, naming the step', () => {
    // Each step doubles the text: 1,000 bytes × 2^7 = 128,000 > 64 KiB at edits[6].
    const edits = Array.from({ length: 30 }, () => edit('a', 'aa', true))
    const error = failure(() => applyEdits('a'.repeat(1000), edits, 'f.txt', { maxBytes: 64 * 1024 }))
    expect(error.code).toBe('FS_TOO_LARGE')
    expect(editIndexOf(error)).toBe(6)
    expect(error.message).toContain('edits[6]: f.txt would become 125.0 KiB with this edit (64000 replacements)')
  })

  it('counts the result in UTF-8 bytes, CRLFs and a BOM included, and lets one exactly at the limit through', () => {
    // 'é' is 2 bytes; the BOM's 3 bytes count against the limit too (planEdits).
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf)
    const file = new Uint8Array([...bom, ...new TextEncoder().encode('x\r\nx\r\n')])
    // x\r\n x\r\n = 6 bytes; each x becomes éé (4 bytes): 12 bytes of text + 3 of BOM.
    expect(planEdits(file, [edit('x', 'éé', true)], 'f.txt', 15).after).toBe('éé\r\néé\r\n')
    expect(failure(() => planEdits(file, [edit('x', 'éé', true)], 'f.txt', 14)).code).toBe('FS_TOO_LARGE')
  })

  it(`refuses more than ${FS_MAX_EDITS} edits before applying any`, () => {
    const edits = Array.from({ length: FS_MAX_EDITS + 1 }, () => edit('absent', 'x'))
    const error = failure(() => applyEdits('text', edits, 'f.txt'))
    expect(error.code).toBe('FS_TOO_LARGE')
    expect(editIndexOf(error)).toBeUndefined()
    expect(error.message).toBe(`f.txt cannot take ${FS_MAX_EDITS + 1} edits in one call: the limit is ${FS_MAX_EDITS}; nothing was changed. `
      + `Send the edits in calls of at most ${FS_MAX_EDITS}, in order (each call applies to what the one before wrote)`)
  })

  it('refuses a replace_all past the replacements one call may make, while counting, and counts them over all the steps', () => {
    const one = failure(() => applyEdits('a'.repeat(50), [edit('a', 'b', true)], 'f.txt', { maxReplacements: 40 }))
    expect(one.code).toBe('FS_TOO_LARGE')
    expect(one.message).toContain('edits[0]: f.txt has more than 40 occurrences of old_string to replace')
    // 30 + 30 > 50: the second step is refused though it alone would fit.
    const text = `${'a'.repeat(30)}${'b'.repeat(30)}`
    const second = failure(() => applyEdits(text, [edit('a', 'c', true), edit('b', 'd', true)], 'f.txt', { maxReplacements: 50 }))
    expect(editIndexOf(second)).toBe(1)
    expect(second.message).toContain('has more than 20 occurrences of old_string to replace, more than are left of the 1,000,000 replacements one call may make')
    expect(applyEdits(text, [edit('a', 'c', true), edit('b', 'd', true)], 'f.txt', { maxReplacements: 60 }).replacements).toEqual([30, 30])
  })

  it('refuses the step that would take the text searched past maxWork, before it runs', () => {
    // 100 characters per step: the 11th step would make 1,100 > 1,000.
    const edits = Array.from({ length: 20 }, (_, i) => edit(`<${i}>`, `<${i + 1}>`))
    const error = failure(() => applyEdits(`<0>${'.'.repeat(97)}`, edits, 'f.txt', { maxWork: 1000 }))
    expect(error.code).toBe('FS_TOO_LARGE')
    expect(editIndexOf(error)).toBe(10)
    expect(error.message).toContain('Send edits[10] and the ones after it in another call')
  })

  it('does work linear in the number of edits: each edit searches the text once and moves at most a bounded number of regions', () => {
    // Every step rewrites one line of a fixed-size text, so each one reports a changed region.
    const text = `v0\n${Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join('')}`
    const run = (count: number) => {
      const edits = Array.from({ length: count }, (_, i) => edit(`v${i}\n`, `v${i + 1}\n`))
      const applied = applyEdits(text, edits, 'f.txt', { maxEdits: Number.POSITIVE_INFINITY })
      expect(applied.text.startsWith(`v${count}\n`)).toBe(true)
      return applied.work
    }
    const small = run(5_000)
    const large = run(10_000)
    // Regions moved: only the first FS_MAX_LINE_CHANGES steps keep one, so each later step moves at
    // most that many (a quadratic walk over every earlier step would move ~ count² / 2).
    expect(large.moved).toBeLessThanOrEqual(10_000 * FS_MAX_LINE_CHANGES)
    expect(large.moved / small.moved).toBeLessThan(2.1)
    // Text searched: one pass per step over a text that stays about the same size.
    expect(large.scanned / small.scanned).toBeGreaterThan(1.9)
    expect(large.scanned / small.scanned).toBeLessThan(2.1)
    expect(large.scanned).toBeLessThanOrEqual(10_000 * (text.length + 8))
  })
})

describe('mapChanges', () => {
  it('leaves regions above a change alone and keeps a pure removal a point', () => {
    expect(mapChanges([{ line: 1, removedLines: 1, addedLines: 1 }, { line: 9, removedLines: 2, addedLines: 0 }], [{ line: 5, removedLines: 0, addedLines: 3 }]))
      .toEqual([{ line: 1, removedLines: 1, addedLines: 1 }, { line: 12, removedLines: 2, addedLines: 0 }])
  })
})
