import type { FsVersion } from '@deepseek-ai/dsh-fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LineIndex } from './line-index'

const v1 = 'v1' as FsVersion
const v2 = 'v2' as FsVersion

describe('LineIndex', () => {
  it('knows only line 1 at byte 0 before anything is recorded', () => {
    expect(new LineIndex().nearest('a', v1, 5000)).toEqual({ line: 1, byte: 0 })
  })

  it('answers the latest checkpoint at or before the line asked for', () => {
    const index = new LineIndex()
    index.record('a', v1, 1001, 90_000)
    index.record('a', v1, 3001, 270_000)
    index.record('a', v1, 2001, 180_000)
    expect(index.nearest('a', v1, 1000)).toEqual({ line: 1, byte: 0 })
    expect(index.nearest('a', v1, 2001)).toEqual({ line: 2001, byte: 180_000 })
    expect(index.nearest('a', v1, 2999)).toEqual({ line: 2001, byte: 180_000 })
    expect(index.nearest('a', v1, 10 ** 9)).toEqual({ line: 3001, byte: 270_000 })
  })

  it('forgets a file whose version changed, on lookup and on record', () => {
    const index = new LineIndex()
    index.record('a', v1, 1001, 90_000)
    expect(index.nearest('a', v2, 5000)).toEqual({ line: 1, byte: 0 })
    expect(index.nearest('a', v1, 5000)).toEqual({ line: 1, byte: 0 })
    index.record('b', v1, 11, 100)
    index.record('b', v2, 21, 200)
    expect(index.nearest('b', v2, 15)).toEqual({ line: 1, byte: 0 })
    expect(index.nearest('b', v1, 15)).toEqual({ line: 1, byte: 0 })
    expect(index.size).toEqual({ files: 0, checkpoints: 0 })
  })

  it('keeps the most recently used files and drops the oldest past maxFiles', () => {
    const index = new LineIndex({ maxFiles: 2 })
    index.record('a', v1, 11, 100)
    index.record('b', v1, 11, 100)
    expect(index.nearest('a', v1, 20).line).toBe(11) // a is now the most recent
    index.record('c', v1, 11, 100)
    expect(index.size.files).toBe(2)
    expect(index.nearest('b', v1, 20).line).toBe(1)
    expect(index.nearest('a', v1, 20).line).toBe(11)
    expect(index.nearest('c', v1, 20).line).toBe(11)
  })

  it('never holds more than maxFiles × maxCheckpoints, and answers only checkpoints it was given', () => {
    fc.assert(fc.property(
      fc.array(fc.record({ file: fc.integer({ min: 0, max: 5 }), line: fc.integer({ min: 1, max: 10_000 }), version: fc.boolean() }), { maxLength: 400 }),
      fc.integer({ min: 1, max: 10_000 }),
      (records, probe) => {
        const index = new LineIndex({ maxFiles: 3, maxCheckpoints: 8, stride: 10 })
        const given = new Set<string>()
        for (const { file, line, version } of records) {
          // The byte is a function of the line, as in a real file at one version.
          index.record(`f${file}`, version ? v1 : v2, line, line * 7)
          given.add(`${line}`)
          const { files, checkpoints } = index.size
          expect(files).toBeLessThanOrEqual(3)
          expect(checkpoints).toBeLessThanOrEqual(3 * 8)
        }
        for (let file = 0; file <= 5; file++) {
          for (const version of [v1, v2]) {
            const found = index.nearest(`f${file}`, version, probe)
            expect(found.line).toBeLessThanOrEqual(probe)
            expect(found.byte).toBe(found.line === 1 ? 0 : found.line * 7)
            if (found.line !== 1) expect(given.has(`${found.line}`)).toBe(true)
          }
        }
      },
    ))
  })

  it('doubles its stride each time it thins a file out', () => {
    const index = new LineIndex({ maxCheckpoints: 4, stride: 10 })
    for (let line = 11; line <= 51; line += 10) index.record('a', v1, line, line)
    expect(index.size.checkpoints).toBe(3)
    expect(index.stride('a', v1)).toBe(20)
    expect(index.stride('other', v1)).toBe(10)
  })
})
