import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { editIndexOf, FsError } from './errors'
import { applyEdits, mapChanges } from './multi-edit'

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

describe('mapChanges', () => {
  it('leaves regions above a change alone and keeps a pure removal a point', () => {
    expect(mapChanges([{ line: 1, removedLines: 1, addedLines: 1 }, { line: 9, removedLines: 2, addedLines: 0 }], [{ line: 5, removedLines: 0, addedLines: 3 }]))
      .toEqual([{ line: 1, removedLines: 1, addedLines: 1 }, { line: 12, removedLines: 2, addedLines: 0 }])
  })
})
