import { mkdtemp, open, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { POOLED_CALLS } from './calls'
import { tryHold } from './kernel-lock'
import { discard, isStagingName, makeStaged, reclaimStaging, stagedNameOf } from './staging'

const fresh = () => mkdtemp(join(tmpdir(), 'dsh-staging-'))
const stage = (dir: string, name: string) => makeStaged(POOLED_CALLS, dir, name, 0o600, name)

describe('staging names', () => {
  it('stages one write per entry name, different ones for different names, and recognises them', () => {
    expect(stagedNameOf('a.txt')).toBe(stagedNameOf('a.txt'))
    expect(stagedNameOf('a.txt')).not.toBe(stagedNameOf('b.txt'))
    expect(isStagingName(stagedNameOf('notes.md'))).toBe(true)
  })

  it('treats a look-alike whose check digits do not match as a user\'s name', () => {
    const ours = stagedNameOf('x')
    const forged = `${ours.slice(0, -8)}${ours.slice(-8) === '00000000' ? '11111111' : '00000000'}`
    const others = [forged, '.dsh-staging.f.cafe0123.1.42.7.backup', '.dsh-staging.notes', '.dsh-staging.l.0123456789abcdef.00000000', `${ours}.backup`, ours.toUpperCase()]
    for (const name of others) expect(isStagingName(name), name).toBe(false)
  })
})

describe('reclaimStaging', () => {
  it('removes staged files nobody holds and keeps the user\'s entries', async () => {
    const dir = await fresh()
    await writeFile(join(dir, stagedNameOf('t.txt')), 'left by a dead writer')
    await writeFile(join(dir, 'user.txt'), 'mine')
    expect(await reclaimStaging(dir)).toBe(1)
    expect(await readdir(dir)).toEqual(['user.txt'])
  })

  it('keeps what a live writer holds, and removes it at the next sweep once its writer is gone', async () => {
    const dir = await fresh()
    const held = await stage(dir, 't.txt')
    const created = await makeStaged(POOLED_CALLS, dir, 'n.txt', 0o666, 'n.txt')
    expect(await reclaimStaging(dir)).toBe(0)
    expect((await readdir(dir)).length).toBe(2)
    // Closed without removal, as a crash would leave them.
    await held.handle.close()
    await created.handle.close()
    expect(await reclaimStaging(dir)).toBe(2)
    expect(await readdir(dir)).toEqual([])
  })
})

describe('makeStaged', () => {
  it('holds an exclusive lock on the staged file from the moment it returns', async () => {
    const dir = await fresh()
    const staged = await stage(dir, 't.txt')
    const other = await open(staged.file, 'r')
    expect(tryHold(other.fd, true)).toBe('busy')
    await staged.handle.close()
    expect(tryHold(other.fd, true)).toBe('held')
    await other.close()
  })

  it('lets one writer of a target stage at a time (its publication lock), the next once the first is gone', async () => {
    const dir = await fresh()
    const first = await stage(dir, 't.txt')
    let second = false
    const next = stage(dir, 't.txt').then((staged) => {
      second = true
      return staged
    })
    // Another target of the same directory does not wait.
    const other = await stage(dir, 'u.txt')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(second).toBe(false)
    await discard(POOLED_CALLS, first)
    const staged = await next
    expect(staged.file).toBe(first.file)
    await discard(POOLED_CALLS, staged)
    await discard(POOLED_CALLS, other)
    expect(await readdir(dir)).toEqual([])
  })

  it('takes over the name of a target a dead writer left staged (nobody holds its lock)', async () => {
    const dir = await fresh()
    await writeFile(join(dir, stagedNameOf('t.txt')), 'left by a dead writer')
    const staged = await stage(dir, 't.txt')
    expect((await staged.handle.stat()).size).toBe(0n)
    await discard(POOLED_CALLS, staged)
    expect(await readdir(dir)).toEqual([])
  })
})
