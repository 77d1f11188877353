import { expect, it } from 'vitest'
import { processMemoryBudget } from '../budget'
import { editIndexOf } from '../errors'
import { FS_MAX_EDITS } from '../limits'
import { expectFsError, type Harness, within } from './harness'

const edit = (oldString: string, newString: string, replaceAll = false) => ({ oldString, newString, replaceAll })

/** Lets queued work run until `done` holds: a poll, bounded by `within`, never a wait that decides a result. */
async function until(done: () => boolean): Promise<void> {
  await within(10_000, (async () => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 2))
  })())
}

/**
 * The bounds `editText` has hold for every mutation: a result is sized before it is built, and
 * memory comes from the process's budget (`processMemoryBudget`, which a provider uses unless it is
 * given its own) before the old text is decoded or the new bytes are made.
 */
export function boundsClauses(h: Harness): void {
  it('editTextMany refuses a step whose result would be too large before building it, and changes nothing', async () => {
    // 500 KB of matches, each replaced by 1 KB in the second step: the 500 MB result is refused, never allocated.
    const text = 'a'.repeat(500_000)
    await h.external.write('grow.txt', text)
    const version = await h.version('grow.txt')
    const error = await expectFsError(h.fs.editTextMany(await h.target('grow.txt'), [edit('a', 'b', true), edit('b', 'c'.repeat(1000), true)]), 'FS_TOO_LARGE')
    expect(editIndexOf(error)).toBe(1)
    expect(await h.disk('grow.txt')).toBe(text)
    expect(await h.version('grow.txt')).toBe(version)
  })

  it(`editTextMany refuses more than ${FS_MAX_EDITS} edits, and changes nothing`, async () => {
    const text = Array.from({ length: FS_MAX_EDITS + 1 }, (_, i) => `<${i}>\n`).join('')
    await h.external.write('many.txt', text)
    const version = await h.version('many.txt')
    const edits = Array.from({ length: FS_MAX_EDITS + 1 }, (_, i) => edit(`<${i}>`, `[${i}]`))
    const error = await expectFsError(h.fs.editTextMany(await h.target('many.txt'), edits), 'FS_TOO_LARGE')
    expect(error.message).toContain(`the limit is ${FS_MAX_EDITS}`)
    expect(await h.disk('many.txt')).toBe(text)
    expect(await h.version('many.txt')).toBe(version)
    // At the cap, the same edits go through.
    await h.fs.editTextMany(await h.target('many.txt'), edits.slice(0, FS_MAX_EDITS))
    expect(await h.disk('many.txt')).toBe(text.replace(/<(\d+)>/g, (whole, i: string) => (Number(i) < FS_MAX_EDITS ? `[${i}]` : whole)))
  })

  it('editTextMany and writeText wait for memory the process budget does not have, and publish once it is released', async () => {
    await h.external.write('m.txt', 'abc\n')
    const budget = processMemoryBudget()
    // All but 8 bytes are held: a multi-edit of a 4-byte file needs 16, a write of 18 bytes at least 18.
    const hold = await budget.reserve(budget.capacity - 8, 'holding memory for the test')
    let many: Promise<unknown> | undefined
    let write: Promise<unknown> | undefined
    try {
      const waiting = budget.waiting
      many = h.fs.editTextMany(await h.target('m.txt'), [edit('a', 'A'), edit('c', 'C')])
      write = h.fs.writeText(await h.target('w.txt'), 'x'.repeat(18))
      await until(() => budget.waiting === waiting + 2)
      expect(await h.disk('m.txt')).toBe('abc\n')
      expect(await h.disk('w.txt')).toBeUndefined()
    } finally {
      hold()
    }
    await Promise.all([many, write])
    expect(await h.disk('m.txt')).toBe('AbC\n')
    expect(await h.disk('w.txt')).toBe('x'.repeat(18))
    expect(budget.waiting).toBe(0)
  })

  it('editText and editTextMany wait for the memory of a result larger than the old text before building it', async () => {
    await h.external.write('g.txt', 'ab\n')
    const budget = processMemoryBudget()
    // The old text's reservation (4 × 3 bytes) fits in what is left; a 3 KB result (12 KB) does not.
    const hold = await budget.reserve(budget.capacity - 64, 'holding memory for the test')
    let one: Promise<unknown> | undefined
    let many: Promise<unknown> | undefined
    try {
      const waiting = budget.waiting
      one = h.fs.editText(await h.target('g.txt'), edit('a', 'a'.repeat(3000)))
      await until(() => budget.waiting === waiting + 1)
      expect(await h.disk('g.txt')).toBe('ab\n')
      hold()
      await one
      expect(await h.disk('g.txt')).toBe(`${'a'.repeat(3000)}b\n`)
      await h.external.write('g.txt', 'ab\n')
      const again = await budget.reserve(budget.capacity - 64, 'holding memory for the test')
      try {
        many = h.fs.editTextMany(await h.target('g.txt'), [edit('b', 'bb'), edit('a', 'a'.repeat(3000))])
        await until(() => budget.waiting === waiting + 1)
        expect(await h.disk('g.txt')).toBe('ab\n')
      } finally {
        again()
      }
      await many
      expect(await h.disk('g.txt')).toBe(`${'a'.repeat(3000)}bb\n`)
    } finally {
      hold()
    }
    expect([budget.waiting, budget.inUse]).toEqual([0, 0])
  })
}
