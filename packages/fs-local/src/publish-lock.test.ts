import { mkdtemp, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { POOLED_CALLS } from './calls'
import { acquirePublishLock, lockPathOf } from './publish-lock'
import { reclaimStaging } from './staging'

const fresh = () => mkdtemp(join(tmpdir(), 'dsh-lock-'))

describe('the publication lock', () => {
  it('lets one holder in at a time, and the next one in once it is released', async () => {
    const dir = await fresh()
    const first = await acquirePublishLock(POOLED_CALLS, dir, 't.txt', 't.txt')
    let second = false
    const next = acquirePublishLock(POOLED_CALLS, dir, 't.txt', 't.txt').then((release) => {
      second = true
      return release
    })
    // A sweep never takes a held lock.
    expect(await reclaimStaging(dir)).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(second).toBe(false)
    await first()
    await (await next)()
    expect(await readdir(dir)).toEqual([])
  })

  it('takes over a lock file its writer left behind (nobody holds its lock), and removes it on release', async () => {
    const dir = await fresh()
    await writeFile(lockPathOf(dir, 't.txt'), '')
    const release = await acquirePublishLock(POOLED_CALLS, dir, 't.txt', 't.txt')
    await release()
    expect(await readdir(dir)).toEqual([])
  })

  it('is one per name: two targets of one directory do not wait for each other', async () => {
    const dir = await fresh()
    const a = await acquirePublishLock(POOLED_CALLS, dir, 'a.txt', 'a.txt')
    const b = await acquirePublishLock(POOLED_CALLS, dir, 'b.txt', 'b.txt')
    await Promise.all([a(), b()])
    expect(await readdir(dir)).toEqual([])
  })

  it('waits for its turn, not for the fsync before it: a failing one leaves no lock file behind', async () => {
    const dir = await fresh()
    await expect(acquirePublishLock(POOLED_CALLS, dir, 't.txt', 't.txt', Promise.reject(new Error('fsync failed')))).rejects.toThrow('fsync failed')
    expect(await readdir(dir)).toEqual([])
  })
})
