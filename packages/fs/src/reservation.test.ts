import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { MemoryBudget } from './budget'
import { FsError } from './errors'
import { MemoryFileSystem, MemoryVolume } from './memory'
import { EDIT_GROWTH_BYTES, editReservation, planReserved, Reservation } from './reservation'
import { planEdits } from './plan'

const settle = () => new Promise((resolve) => setImmediate(resolve))
const doubling = (count: number) => Array.from({ length: count }, () => ({ oldString: 'a', newString: 'aa', replaceAll: true }))

describe('a growing reservation', () => {
  it('gives back what it holds before it waits for more, so two that grow together never wait on each other', async () => {
    const budget = new MemoryBudget(100)
    const a = new Reservation(budget, 'editing', 'a')
    const b = new Reservation(budget, 'editing', 'b')
    await a.ensure(50)
    await b.ensure(40)
    // Holding on while waiting would leave a (waiting for 90) and b (waiting for 80) stuck for ever.
    const growA = a.ensure(90)
    await settle()
    expect([budget.inUse, budget.waiting]).toEqual([40, 1])
    // b gives its 40 back before it waits: a's 90 then fit, and b waits behind it.
    const growB = b.ensure(80)
    await growA
    await settle()
    expect([a.bytes, b.bytes, budget.inUse, budget.waiting]).toEqual([90, 0, 90, 1])
    a.release()
    await growB
    expect(b.bytes).toBe(80)
    b.release()
    expect([budget.inUse, budget.waiting]).toEqual([0, 0])
  })

  it('plans again with more memory, doubling, until the plan fits: one pass per doubling at most', async () => {
    const budget = new MemoryBudget(1 << 30)
    const held = new Reservation(budget, 'editing', 'f.txt')
    await held.ensure(4 * 1000)
    let passes = 0
    const plan = await planReserved(held, (heldBytes) => {
      passes++
      return planEdits(new TextEncoder().encode('a'.repeat(1000)), doubling(8), 'f.txt', 1 << 30, heldBytes)
    })
    expect(plan.after).toHaveLength(1000 * 2 ** 8)
    // Each step needs twice the one before: the reservation keeps up in one pass per step at most.
    expect(passes).toBeLessThanOrEqual(9)
    expect(held.bytes).toBeGreaterThanOrEqual(4 * 1000 * 2 ** 8)
    expect(budget.inUse).toBe(held.bytes)
    held.release()
  })
})

describe('the 953-byte multi_edit that once took 4.3 GB', () => {
  // 30 steps that each double the text: 1,000 × 2^30 bytes, were it built.
  it('is refused by the memory budget before a result larger than the budget is built, and changes nothing', async () => {
    const volume = new MemoryVolume()
    volume.writeFile('/f.txt', 'a'.repeat(1000))
    // A 512,000-byte result (edits[8]) would hold 2 MB: past the 1 MiB budget.
    const budget = new MemoryBudget(1024 * 1024)
    const fs = new MemoryFileSystem(new Context(), { volume, memoryBudget: budget })
    const error = await fs.editTextMany(await fs.resolve('/f.txt'), doubling(30)).catch((caught: unknown) => caught)
    expect(FsError.is(error, 'FS_TOO_LARGE')).toBe(true)
    expect((error as FsError).message).toBe("/f.txt needs about 2 MiB of memory for editing at once, more than this process's budget of 1 MiB; "
      + "nothing was changed. Work on a smaller file, or raise the provider's memoryBudgetBytes")
    expect(new TextDecoder().decode(volume.readFile('/f.txt'))).toBe('a'.repeat(1000))
    expect([budget.inUse, budget.waiting]).toEqual([0, 0])
  })

  it('is refused by the replacements one call may make, with the default budget, and changes nothing', async () => {
    const volume = new MemoryVolume()
    volume.writeFile('/f.txt', 'a'.repeat(1000))
    const fs = new MemoryFileSystem(new Context(), { volume })
    const error = await fs.editTextMany(await fs.resolve('/f.txt'), doubling(30)).catch((caught: unknown) => caught)
    expect(FsError.is(error, 'FS_TOO_LARGE')).toBe(true)
    // edits[0..8] make 1,000 × (2^9 - 1) = 511,000 replacements; edits[9]'s 512,000 would pass 1,000,000.
    expect((error as FsError).message).toMatch(/^edits\[9\]: \/f\.txt has more than 489,000 occurrences of old_string to replace/)
    expect(new TextDecoder().decode(volume.readFile('/f.txt'))).toBe('a'.repeat(1000))
  })
})

describe('what an edit reserves before it plans', () => {
  it('holds the cost of the file and of a usual growth, so an edit adding a line plans once', async () => {
    expect(editReservation(4096, 1 << 20, 1 << 30)).toBe(4 * (4096 + EDIT_GROWTH_BYTES))
    const budget = new MemoryBudget(1 << 30)
    const held = new Reservation(budget, 'editing', 'f.txt')
    await held.ensure(editReservation(4096, 1 << 20, budget.capacity))
    let passes = 0
    await planReserved(held, (heldBytes) => {
      passes++
      return planEdits(new TextEncoder().encode(`start\n${'a'.repeat(4090)}`), [{ oldString: 'start', newString: 'b'.repeat(1000), replaceAll: false }], 'f.txt', 1 << 20, heldBytes)
    })
    expect(passes).toBe(1)
  })

  it('never reserves past maxTextBytes or past the budget, unless the file alone costs more', () => {
    expect(editReservation(4096, 5000, 1 << 30)).toBe(4 * 5000)
    expect(editReservation(1000, 1 << 20, 4000)).toBe(4000)
    expect(editReservation(1000, 1 << 20, 3000)).toBe(4000)
  })
})
