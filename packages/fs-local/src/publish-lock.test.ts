import { mkdir, mkdtemp, readdir, readlink, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { acquirePublishLock, lockPathOf, reclaimDeadLocks } from './publish-lock'
import { selfIdentity } from './staging'

async function scratch(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'dsh-fs-local-lock-'))
}

/** An identity that certainly belongs to no live process: this boot, this pid, another start time. */
function deadIdentity(): string {
  const me = selfIdentity()
  return JSON.stringify({ boot: me.boot, pid: me.pid, start: `${me.start}1` })
}

describe('publication lock', () => {
  it('is one symlink naming its holder, taken and given back in one call each', async () => {
    const dir = await scratch()
    const target = join(dir, 'file.txt')
    const release = await acquirePublishLock(target, 'file.txt')
    expect(JSON.parse(await readlink(lockPathOf(target)))).toEqual(selfIdentity())
    await release()
    expect(await readdir(dir)).toEqual([])
  })

  it('waits for a live holder and takes the lock once it is released', async () => {
    const dir = await scratch()
    const target = join(dir, 'file.txt')
    const first = await acquirePublishLock(target, 'file.txt')
    let taken = false
    const second = acquirePublishLock(target, 'file.txt').then((release) => {
      taken = true
      return release
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(taken, 'a live holder is never reclaimed').toBe(false)
    await first()
    await (await second)()
    expect(await readdir(dir)).toEqual([])
  })

  it('reclaims a lock left by a dead writer, in either form, and leaves no residue', async () => {
    const dir = await scratch()
    const link = join(dir, 'link.txt')
    const directory = join(dir, 'directory.txt')
    await symlink(deadIdentity(), lockPathOf(link))
    await mkdir(lockPathOf(directory))
    await writeFile(join(lockPathOf(directory), 'owner'), deadIdentity())
    await (await acquirePublishLock(link, 'link.txt'))()
    await (await acquirePublishLock(directory, 'directory.txt'))()
    expect(await readdir(dir)).toEqual([])
  })

  it('is swept with the staging when its holder is dead, and kept while it lives', async () => {
    const dir = await scratch()
    await symlink(deadIdentity(), lockPathOf(join(dir, 'dead.txt')))
    await symlink(JSON.stringify(selfIdentity()), lockPathOf(join(dir, 'live.txt')))
    await reclaimDeadLocks(dir)
    expect(await readdir(dir)).toEqual([lockPathOf(join(dir, 'live.txt')).slice(dir.length + 1)])
  })
})
