import { mkdirSync, mkdtempSync, statfsSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { INLINE_CALLS, INLINE_PATH_BYTES, isLocalFilesystem, POOLED_CALLS } from './calls'
import { LocalProcess } from './process'

const dir = mkdtempSync(join(tmpdir(), 'dsh-calls-'))
// ext4, xfs, btrfs or tmpfs: what CI machines and developer laptops put /tmp on.
const local = process.platform === 'linux' && [0xef53, 0x58465342, 0x9123683e, 0x01021994].includes(Number(statfsSync(dir).type))

describe('inline calls', () => {
  it('are off in a fresh process until a disk is enlisted', () => {
    expect(new LocalProcess().calls.inline).toBe(false)
  })

  it.runIf(local)('run on the loop thread for a disk on a local filesystem, with the errors of the thread-pool calls', async () => {
    const failure = (calls: typeof INLINE_CALLS) => calls.lstat(join(dir, 'missing')).then(() => undefined, (error: NodeJS.ErrnoException) => error)
    const threaded = (await failure(POOLED_CALLS))!
    const shared = new LocalProcess()
    shared.enlist(dir, 'auto')
    expect(shared.calls).toBe(INLINE_CALLS)
    const inline = (await failure(shared.calls))!
    expect(inline).toBeInstanceOf(Error)
    expect([inline.code, inline.syscall, inline.path]).toEqual([threaded.code, threaded.syscall, threaded.path])
    // A call that answers at once still answers through a promise, after the caller's own code.
    writeFileSync(join(dir, 'a'), 'x')
    symlinkSync('a', join(dir, 'b'))
    const order: string[] = []
    const read = shared.calls.readlink(join(dir, 'b')).then((target: string) => order.push(`read ${target}`))
    order.push('called')
    await read
    expect(order).toEqual(['called', 'read a'])
    expect(await shared.calls.realpath(join(dir, 'b'))).toBe(join(await shared.calls.realpath(dir), 'a'))
  })

  it('go back to the thread pool for good once a disk of that process asks for it, and only there', () => {
    const shared = new LocalProcess()
    shared.enlist(dir, 'never')
    expect(shared.calls).toBe(POOLED_CALLS)
    shared.enlist(dir, 'auto')
    expect(shared.calls).toBe(POOLED_CALLS)
    const other = new LocalProcess()
    other.enlist(dir, 'auto')
    expect(other.calls.inline).toBe(local)
  })

  it.runIf(local)('look a path longer than the bound up in the thread pool, so a deep tree never holds the loop thread', async () => {
    // Deeper than INLINE_PATH_BYTES: every component one letter.
    let deep = dir
    while (deep.length <= INLINE_PATH_BYTES + 8) deep = join(deep, 'd')
    mkdirSync(deep, { recursive: true })
    let turns = 0
    const tick = () => new Promise<void>((resolve) => setImmediate(() => {
      turns++
      resolve()
    }))
    const looked = INLINE_CALLS.realpath(deep)
    // A lookup made on the loop thread would have answered before any other callback ran.
    await tick()
    expect(turns).toBe(1)
    expect(await looked).toBe(join(await INLINE_CALLS.realpath(dir), deep.slice(dir.length)))
    // And a short one is answered inline: before the next turn of the loop.
    let answered = false
    const short = INLINE_CALLS.realpath(dir).then(() => (answered = true))
    await Promise.resolve()
    await Promise.resolve()
    expect(answered).toBe(true)
    await short
  })

  it('count only filesystems known to be local', () => {
    expect(isLocalFilesystem(dir)).toBe(local)
    // procfs, and a path that does not exist: not known to answer at once.
    expect(isLocalFilesystem('/proc')).toBe(false)
    expect(isLocalFilesystem(join(dir, 'nowhere'))).toBe(false)
  })
})
