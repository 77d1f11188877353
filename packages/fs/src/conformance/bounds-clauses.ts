import { expect, it } from 'vitest'
import { processMemoryBudget } from '../budget'
import { editIndexOf } from '../errors'
import { FS_MAX_EDITS } from '../limits'
import type { FsTarget } from '../types'
import { expectFsError, type Harness, within, type ClauseGroup } from './harness'

const edit = (oldString: string, newString: string, replaceAll = false) => ({ oldString, newString, replaceAll })

/** Lets queued work run until `done` holds: a poll, bounded by `within`, never a wait that decides a result. */
async function until(done: () => boolean): Promise<void> {
  await within(10_000, (async () => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 2))
  })())
}

export const bounds: ClauseGroup = { title: 'memory bounds of every mutation', clauses: boundsClauses }

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
    let many: Promise<unknown> | undefined
    let write: Promise<unknown> | undefined
    // A multi-edit of a 4-byte file needs 16 bytes, a write of 18 bytes at least 18: neither fits in 8.
    await withMemoryHeld(8, async (queued) => {
      many = h.fs.editTextMany(await h.target('m.txt'), [edit('a', 'A'), edit('c', 'C')])
      write = h.fs.writeText(await h.target('w.txt'), 'x'.repeat(18))
      await queued(2)
      expect(await h.disk('m.txt')).toBe('abc\n')
      expect(await h.disk('w.txt')).toBeUndefined()
    })
    await Promise.all([many, write])
    expect(await h.disk('m.txt')).toBe('AbC\n')
    expect(await h.disk('w.txt')).toBe('x'.repeat(18))
    expect(processMemoryBudget().waiting).toBe(0)
  })

  it('editText and editTextMany wait for the memory of a result larger than the old text before building it', async () => {
    const grown = 'a'.repeat(3000)
    const calls: [(target: FsTarget) => Promise<unknown>, string][] = [
      [(target) => h.fs.editText(target, edit('a', grown)), `${grown}b\n`],
      [(target) => h.fs.editTextMany(target, [edit('b', 'bb'), edit('a', grown)]), `${grown}bb\n`],
    ]
    for (const [call, result] of calls) {
      await h.external.write('g.txt', 'ab\n')
      let pending: Promise<unknown> | undefined
      // The old text's reservation (4 × 3 bytes) fits in 64 bytes; a 3 KB result (12 KB) does not.
      await withMemoryHeld(64, async (queued) => {
        pending = call(await h.target('g.txt'))
        await queued(1)
        expect(await h.disk('g.txt')).toBe('ab\n')
      })
      await pending
      expect(await h.disk('g.txt')).toBe(result)
    }
    const budget = processMemoryBudget()
    expect([budget.waiting, budget.inUse]).toEqual([0, 0])
  })
}

/**
 * Runs `fn` while the test holds all but `free` bytes of the process budget, and releases them
 * after it, whatever happens. `queued(n)` lets queued work run until `n` more calls wait for memory.
 */
async function withMemoryHeld(free: number, fn: (queued: (n: number) => Promise<void>) => Promise<void>): Promise<void> {
  const budget = processMemoryBudget()
  const release = await budget.reserve(budget.capacity - free, 'holding memory for the test')
  const waiting = budget.waiting
  try {
    await fn((n) => until(() => budget.waiting === waiting + n))
  } finally {
    release()
  }
}
