import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { MemoryBudget, processMemoryBudget } from './budget'
import { FsError } from './errors'
import { MemoryFileSystem, MemoryVolume } from './memory'

/** Lets every promise that can settle now settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'no error', (error: unknown) => (FsError.is(error) ? error.code : String(error)))

describe('MemoryBudget', () => {
  it('grants reservations that fit and queues the rest in arrival order', async () => {
    const budget = new MemoryBudget(100)
    const order: string[] = []
    const first = await budget.reserve(60, 'first')
    const second = budget.reserve(50, 'second').then((release) => (order.push('second'), release))
    const third = budget.reserve(10, 'third').then((release) => (order.push('third'), release))
    await settle()
    // The 10 bytes would fit, but they arrived after a waiting reservation: no overtaking.
    expect([budget.inUse, budget.waiting, order]).toEqual([60, 2, []])
    first()
    ;(await second)()
    ;(await third)()
    expect(order).toEqual(['second', 'third'])
    expect([budget.inUse, budget.waiting]).toEqual([0, 0])
  })

  it('refuses at once, with FS_TOO_LARGE, a reservation larger than the whole budget', async () => {
    const budget = new MemoryBudget(100)
    await expect(budget.reserve(101, 'editing', '/big.txt')).rejects.toMatchObject({
      code: 'FS_TOO_LARGE',
      message: expect.stringMatching(/^\/big.txt needs about 1 MiB of memory for editing at once, more than this process's budget of 1 MiB; .*memoryBudgetBytes$/),
    })
    expect(budget.inUse).toBe(0)
  })

  it('gives up a queued reservation on abort, and lets the next one through', async () => {
    const budget = new MemoryBudget(100)
    const held = await budget.reserve(90, 'held')
    const controller = new AbortController()
    const aborted = codeOf(budget.reserve(50, 'aborted', undefined, controller.signal))
    const next = budget.reserve(10, 'next')
    await settle()
    expect(budget.waiting).toBe(2)
    controller.abort()
    expect(await aborted).toBe('FS_ABORTED')
    ;(await next)()
    held()
    expect([budget.inUse, budget.waiting]).toEqual([0, 0])
  })

  it('is one object per process, lowered by the smallest configured capacity', () => {
    const budget = processMemoryBudget()
    expect(processMemoryBudget()).toBe(budget)
    const capacity = budget.capacity
    try {
      expect(processMemoryBudget(capacity / 2).capacity).toBe(capacity / 2)
      expect(processMemoryBudget(capacity).capacity).toBe(capacity / 2)
    } finally {
      budget.capacity = capacity
    }
  })
})

describe('MemoryFileSystem under a memory budget', () => {
  async function provider(capacity: number) {
    const volume = new MemoryVolume()
    const budget = new MemoryBudget(capacity)
    const ctx = new Context()
    await ctx.plugin(MemoryFileSystem, { volume, memoryBudget: budget })
    return { fs: ctx.fs, volume, budget }
  }

  it('queues an edit past the budget until the one holding it is published', async () => {
    const { fs, volume, budget } = await provider(1000)
    volume.writeFile('/a.txt', 'a'.repeat(200))
    volume.writeFile('/b.txt', 'b'.repeat(200))
    let resume!: () => void
    const paused = new Promise<void>((resolve) => (resume = resolve))
    volume.beforeNextPublish(() => paused)
    // Each edit of a 200-byte file reserves 800 bytes: the second cannot start while the first runs.
    const first = fs.editText(await fs.resolve('/a.txt'), { oldString: 'a', newString: 'x', replaceAll: true })
    await settle()
    const second = fs.editText(await fs.resolve('/b.txt'), { oldString: 'b', newString: 'y', replaceAll: true })
    await settle()
    expect([budget.inUse, budget.waiting]).toEqual([800, 1])
    expect(new TextDecoder().decode(volume.readFile('/b.txt'))).toBe('b'.repeat(200))
    resume()
    expect((await first).replacements).toBe(200)
    expect((await second).replacements).toBe(200)
    expect(new TextDecoder().decode(volume.readFile('/b.txt'))).toBe('y'.repeat(200))
    expect([budget.inUse, budget.waiting]).toEqual([0, 0])
  })

  it('refuses an edit that alone needs more than the budget, with FS_TOO_LARGE, and changes nothing', async () => {
    const { fs, volume, budget } = await provider(1000)
    volume.writeFile('/big.txt', 'a'.repeat(300))
    const version = volume.get('/big.txt')!.version
    expect(await codeOf(fs.editText(await fs.resolve('/big.txt'), { oldString: 'a', newString: 'b', replaceAll: false }))).toBe('FS_TOO_LARGE')
    expect(volume.get('/big.txt')!.version).toBe(version)
    expect(budget.inUse).toBe(0)
  })
})
