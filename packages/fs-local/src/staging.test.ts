import { mkdir, mkdtemp, open, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { POOLED_CALLS } from './calls'
import { tryHold } from './kernel-lock'
import { lockNameOf, newStagingName } from './names'
import { makeStaged, reclaimStaging, removeStaged } from './staging'

const fresh = () => mkdtemp(join(tmpdir(), 'dsh-staging-'))

describe('reclaimStaging', () => {
  it('removes staged files, staging directories and locks nobody holds, and keeps the user\'s entries', async () => {
    const dir = await fresh()
    const file = newStagingName('f')
    await writeFile(join(dir, file), 'left by a dead writer')
    const staging = newStagingName('d')
    await mkdir(join(dir, staging), { mode: 0o700 })
    await writeFile(join(dir, staging, 'content'), 'left by a dead writer')
    const empty = newStagingName('d')
    await mkdir(join(dir, empty), { mode: 0o700 })
    await writeFile(join(dir, lockNameOf('t.txt')), '')
    await writeFile(join(dir, 'user.txt'), 'mine')
    expect(await reclaimStaging(dir)).toBe(4)
    expect(await readdir(dir)).toEqual(['user.txt'])
  })

  it('keeps what a live writer holds, and a staging directory that holds anything but its content', async () => {
    const dir = await fresh()
    const held = await makeStaged(POOLED_CALLS, dir, 0o600)
    const created = await makeStaged(POOLED_CALLS, dir, undefined)
    const odd = newStagingName('d')
    await mkdir(join(dir, odd), { mode: 0o700 })
    await writeFile(join(dir, odd, 'notes.md'), 'mine')
    const open700 = newStagingName('d')
    await mkdir(join(dir, open700), { mode: 0o755 })
    expect(await reclaimStaging(dir)).toBe(0)
    expect((await readdir(dir)).length).toBe(4)
    // Released (closed without removal, as a crash would): both go at the next sweep.
    await held.handle.close()
    await created.handle.close()
    expect(await reclaimStaging(dir)).toBe(2)
    expect((await readdir(dir)).sort()).toEqual([odd, open700].sort())
  })

  it('leaves nothing once a staging is removed by its writer', async () => {
    const dir = await fresh()
    for (const mode of [0o600, undefined]) {
      const staged = await makeStaged(POOLED_CALLS, dir, mode)
      await removeStaged(staged, false)
      await staged.handle.close()
    }
    expect(await readdir(dir)).toEqual([])
  })
})

describe('makeStaged', () => {
  it('holds an exclusive lock on the staged file from the moment it returns', async () => {
    const dir = await fresh()
    const staged = await makeStaged(POOLED_CALLS, dir, 0o600)
    const other = await open(staged.file, 'r')
    expect(tryHold(other.fd, true)).toBe('busy')
    await staged.handle.close()
    expect(tryHold(other.fd, true)).toBe('held')
    await other.close()
  })
})
