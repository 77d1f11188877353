import { mkdtempSync, statfsSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { callsInline, enlistProvider, isLocalFilesystem, lstat, readlink, realpath } from './calls'

const dir = mkdtempSync(join(tmpdir(), 'dsh-calls-'))
// ext4, xfs, btrfs or tmpfs: what CI machines and developer laptops put /tmp on.
const local = process.platform === 'linux' && [0xef53, 0x58465342, 0x9123683e, 0x01021994].includes(Number(statfsSync(dir).type))

describe('inline calls', () => {
  it('are off until a provider is enlisted', () => {
    expect(callsInline()).toBe(false)
  })

  it.runIf(local)('run on the loop thread for a provider on a local filesystem, with the errors of the thread-pool calls', async () => {
    const failure = () => lstat(join(dir, 'missing')).then(() => undefined, (error: NodeJS.ErrnoException) => error)
    const threaded = (await failure())!
    enlistProvider(dir, 'auto')
    expect(callsInline()).toBe(true)
    const inline = (await failure())!
    expect(inline).toBeInstanceOf(Error)
    expect([inline.code, inline.syscall, inline.path]).toEqual([threaded.code, threaded.syscall, threaded.path])
    // A call that answers at once still answers through a promise, after the caller's own code.
    writeFileSync(join(dir, 'a'), 'x')
    symlinkSync('a', join(dir, 'b'))
    const order: string[] = []
    const read = readlink(join(dir, 'b')).then((target) => order.push(`read ${target}`))
    order.push('called')
    await read
    expect(order).toEqual(['called', 'read a'])
    expect(await realpath(join(dir, 'b'))).toBe(join(await realpath(dir), 'a'))
  })

  it('go back to the thread pool for good once a provider asks for it', () => {
    enlistProvider(dir, 'never')
    expect(callsInline()).toBe(false)
    enlistProvider(dir, 'auto')
    expect(callsInline()).toBe(false)
  })

  it('count only filesystems known to be local', () => {
    expect(isLocalFilesystem(dir)).toBe(local)
    // procfs, and a path that does not exist: not known to answer at once.
    expect(isLocalFilesystem('/proc')).toBe(false)
    expect(isLocalFilesystem(join(dir, 'nowhere'))).toBe(false)
  })
})
