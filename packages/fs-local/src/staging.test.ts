import { mkdir, mkdtemp, open, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { POOLED_CALLS } from './calls'
import { tryHold } from './kernel-lock'
import { newStagingName, stagedNameOf } from './names'
import { makeStaged, reclaimStaging, removeStaged } from './staging'

const fresh = () => mkdtemp(join(tmpdir(), 'dsh-staging-'))
const replacing = (name: string) => ({ name, mode: 0o600 })

describe('reclaimStaging', () => {
  it('removes staged files and staging directories nobody holds, and keeps the user\'s entries', async () => {
    const dir = await fresh()
    await writeFile(join(dir, stagedNameOf('t.txt')), 'left by a dead writer')
    const staging = newStagingName('d')
    await mkdir(join(dir, staging), { mode: 0o700 })
    await writeFile(join(dir, staging, 'content'), 'left by a dead writer')
    const empty = newStagingName('d')
    await mkdir(join(dir, empty), { mode: 0o700 })
    await writeFile(join(dir, 'user.txt'), 'mine')
    expect(await reclaimStaging(dir)).toBe(3)
    expect(await readdir(dir)).toEqual(['user.txt'])
  })

  it('keeps what a live writer holds, and a staging directory that holds anything but its content', async () => {
    const dir = await fresh()
    const held = await makeStaged(POOLED_CALLS, dir, replacing('t.txt'), 't.txt')
    const created = await makeStaged(POOLED_CALLS, dir, undefined, 'n.txt')
    const odd = newStagingName('d')
    await mkdir(join(dir, odd), { mode: 0o700 })
    await writeFile(join(dir, odd, 'notes.md'), 'mine')
    const open755 = newStagingName('d')
    await mkdir(join(dir, open755), { mode: 0o755 })
    expect(await reclaimStaging(dir)).toBe(0)
    expect((await readdir(dir)).length).toBe(4)
    // Released (closed without removal, as a crash would): both go at the next sweep.
    await held.handle.close()
    await created.handle.close()
    expect(await reclaimStaging(dir)).toBe(2)
    expect((await readdir(dir)).sort()).toEqual([odd, open755].sort())
  })

  it('leaves nothing once a staging is removed by its writer', async () => {
    const dir = await fresh()
    for (const how of [replacing('t.txt'), undefined]) {
      const staged = await makeStaged(POOLED_CALLS, dir, how, 't.txt')
      await removeStaged(staged, false)
      await staged.handle.close()
    }
    expect(await readdir(dir)).toEqual([])
  })
})

describe('makeStaged', () => {
  it('holds an exclusive lock on the staged file from the moment it returns', async () => {
    const dir = await fresh()
    const staged = await makeStaged(POOLED_CALLS, dir, replacing('t.txt'), 't.txt')
    const other = await open(staged.file, 'r')
    expect(tryHold(other.fd, true)).toBe('busy')
    await staged.handle.close()
    expect(tryHold(other.fd, true)).toBe('held')
    await other.close()
  })

  it('lets one writer of a target stage at a time (its publication lock), the next once the first is gone', async () => {
    const dir = await fresh()
    const first = await makeStaged(POOLED_CALLS, dir, replacing('t.txt'), 't.txt')
    let second = false
    const next = makeStaged(POOLED_CALLS, dir, replacing('t.txt'), 't.txt').then((staged) => {
      second = true
      return staged
    })
    // Another target of the same directory does not wait.
    const other = await makeStaged(POOLED_CALLS, dir, replacing('u.txt'), 'u.txt')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(second).toBe(false)
    await removeStaged(first, false)
    await first.handle.close()
    const staged = await next
    expect(staged.file).toBe(first.file)
    for (const done of [staged, other]) {
      await removeStaged(done, false)
      await done.handle.close()
    }
    expect(await readdir(dir)).toEqual([])
  })

  it('takes over the name of a target a dead writer left staged (nobody holds its lock)', async () => {
    const dir = await fresh()
    await writeFile(join(dir, stagedNameOf('t.txt')), 'left by a dead writer')
    const staged = await makeStaged(POOLED_CALLS, dir, replacing('t.txt'), 't.txt')
    expect(staged.created.size).toBe(0)
    await removeStaged(staged, false)
    await staged.handle.close()
    expect(await readdir(dir)).toEqual([])
  })
})
