import { describe, expect, it } from 'vitest'
import { PdfThreads, type PdfWorker } from '../src/media/pdf-worker'

const BOUNDS = { maxDecodedBytes: 64 * 1024 * 1024, maxHeapMb: 64 }

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('the PDF threads of a plugin', () => {
  it('let at most max threads parse at once: a read beyond them waits, then gets the thread given back', async () => {
    const threads = new PdfThreads(2)
    const first = await threads.take(BOUNDS)
    const second = await threads.take(BOUNDS)
    let third: PdfWorker | undefined
    const waiting = threads.take(BOUNDS).then((worker) => { third = worker })
    await turn()
    expect(third).toBeUndefined()
    threads.give(first)
    await waiting
    expect(third).toBe(first)
    threads.give(second)
    threads.give(third!)
    // One is kept idle (the first given back while none was), the other ended.
    expect([first.alive, second.alive]).toEqual([false, true])
    threads.dispose()
    expect(second.alive).toBe(false)
    await Promise.all([first.exited, second.exited])
  })

  it('end a waiting read with its abort, and let the next read have the thread', async () => {
    const threads = new PdfThreads(1)
    const busy = await threads.take(BOUNDS)
    const aborted = new AbortController()
    const waiting = threads.take(BOUNDS, aborted.signal)
    aborted.abort(new Error('the call was aborted'))
    await expect(waiting).rejects.toThrow('the call was aborted')
    threads.give(busy)
    const next = await threads.take(BOUNDS)
    expect(next).toBe(busy)
    threads.give(next)
    threads.dispose()
    await busy.exited
  })

  it('start a fresh thread when the idle one has other bounds, ending the idle one', async () => {
    const threads = new PdfThreads(2)
    const kept = await threads.take(BOUNDS)
    threads.give(kept)
    const other = await threads.take({ ...BOUNDS, maxHeapMb: 96 })
    expect(other).not.toBe(kept)
    expect(kept.alive).toBe(false)
    threads.give(other)
    threads.dispose()
    await Promise.all([kept.exited, other.exited])
  })
})
