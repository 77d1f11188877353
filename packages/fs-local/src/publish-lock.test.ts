import { spawn } from 'node:child_process'
import { link, lstat, mkdir, mkdtemp, readdir, readlink, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { acquirePublishLock, lockPathOf, reclaimDeadLocks } from './publish-lock'
import { selfIdentity } from './liveness'
import { makeStaging, removeStaging } from './staging'

async function scratch(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'dsh-fs-local-lock-'))
}

/** An identity that certainly belongs to no live process: this boot, this pid, another start time. */
function deadIdentity(): string {
  const me = selfIdentity()
  return JSON.stringify({ ...me, start: `${me.start}1` })
}

/** A socket bound by a child process, and a way to kill that process (its socket then refuses). */
async function childSocket(path: string): Promise<() => Promise<void>> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`])
  await new Promise((resolve) => child.stdout.once('data', resolve))
  return async () => {
    const closed = new Promise((resolve) => child.once('close', resolve))
    child.kill('SIGKILL')
    await closed
  }
}

describe('publication lock', () => {
  it('is a hard link to the holder\'s liveness socket when it has one, taken and given back in one call each', async () => {
    const dir = await scratch()
    const target = join(dir, 'file.txt')
    const staging = await makeStaging(dir)
    const release = await acquirePublishLock(target, 'file.txt', staging.live!.path)
    const [lock, socket] = await Promise.all([lstat(lockPathOf(target)), lstat(staging.live!.path)])
    expect(lock.isSocket()).toBe(true)
    expect(lock.ino).toBe(socket.ino)
    await release()
    await removeStaging(staging)
    expect(await readdir(dir)).toEqual([])
  })

  it('reclaims a socket lock once its holder is killed, never while it lives, in any namespace', async () => {
    const dir = await scratch()
    const target = join(dir, 'file.txt')
    const kill = await childSocket(join(dir, 'held'))
    await link(join(dir, 'held'), lockPathOf(target))
    await reclaimDeadLocks(dir)
    expect((await readdir(dir)).sort()).toEqual(['held', lockPathOf(target).slice(dir.length + 1)].sort())
    await kill()
    await (await acquirePublishLock(target, 'file.txt'))()
    expect(await readdir(dir)).toEqual(['held'])
  })

  it('keeps a symlink lock of another PID namespace whose pid is free here, inside its lease', async () => {
    const dir = await scratch()
    const me = selfIdentity()
    await symlink(JSON.stringify({ ...me, ns: '1', pid: 2 ** 22 + 1 }), lockPathOf(join(dir, 'foreign.txt')))
    await reclaimDeadLocks(dir)
    expect(await readdir(dir)).toEqual([lockPathOf(join(dir, 'foreign.txt')).slice(dir.length + 1)])
  })

  it('is one symlink naming its holder where it has no socket, taken and given back in one call each', async () => {
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
