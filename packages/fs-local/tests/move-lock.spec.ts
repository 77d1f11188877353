import { Context } from 'cordis'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LocalFileSystem, STAGING_PREFIX } from '../src'
import { holdAfterStaging, whileLocked } from './hooks'
import { localFixture } from './fixture'

const staging = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith(STAGING_PREFIX))

/** A second provider on the same directory with a process state of its own: another dsh, as far as locks go. */
function otherProcess(dir: string): LocalFileSystem {
  return new LocalFileSystem(new Context(), LocalFileSystem.Config.parse({ cwd: dir, root: dir }))
}

/**
 * A write held between its staging and its rename (its staged name, the target's publication lock,
 * exists), while another process removes or moves the same file at the version it read.
 */
async function heldWrite(): Promise<{ fx: Awaited<ReturnType<typeof localFixture>>; writing: Promise<unknown>; release: () => void }> {
  const fx = await localFixture({}, true)
  await fx.external.write('t.txt', 'old\n')
  const { reached, release } = holdAfterStaging(fx.fs.disk)
  const writing = fx.fs.writeText(await fx.fs.resolve('t.txt'), 'new\n')
  await reached
  return { fx, writing, release }
}

// remove and rename take the source's publication lock, the staged name a replacing write holds
// from staging to rename: they wait for that write, then find its version, never unlink under it.
describe('remove and rename on the local disk', () => {
  it('wait for another process\'s write of the source to publish, then refuse the stale version, keeping its bytes', async () => {
    const { fx, writing, release } = await heldWrite()
    const other = otherProcess(fx.dir)
    const target = await other.resolve('t.txt')
    const { version } = (await other.stat(target))!
    let lockedAfterRelease: boolean | undefined
    let released = false
    whileLocked(other.disk, async () => void (lockedAfterRelease ??= released))
    const removing = other.remove!(target, { expected: { version } }).catch((error: unknown) => error)
    // Give the removal every chance to run ahead; only the lock can hold it back.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    released = true
    release()
    await writing
    expect(await removing).toMatchObject({ code: 'FS_STALE_VERSION' })
    expect(lockedAfterRelease).toBe(true)
    expect(await readFile(join(fx.dir, 't.txt'), 'utf8')).toBe('new\n')
    expect(await staging(fx.dir)).toEqual([])
    await fx.dispose()
  })

  it('a rename at the read version waits the same way and moves nothing', async () => {
    const { fx, writing, release } = await heldWrite()
    const other = otherProcess(fx.dir)
    const source = await other.resolve('t.txt')
    const { version } = (await other.stat(source))!
    let released = false
    let lockedAfterRelease: boolean | undefined
    whileLocked(other.disk, async () => void (lockedAfterRelease ??= released))
    const moving = other.rename!(source, await other.resolve('u.txt'), { expected: { version } }).catch((error: unknown) => error)
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    released = true
    release()
    await writing
    expect(await moving).toMatchObject({ code: 'FS_STALE_VERSION' })
    expect(lockedAfterRelease).toBe(true)
    expect((await readdir(fx.dir)).sort()).toEqual(['t.txt'])
    await fx.dispose()
  })

  it('leave no lock behind, moved, removed or refused', async () => {
    const fx = await localFixture({}, true)
    await fx.external.write('a.txt', 'a\n')
    await fx.external.write('b.txt', 'b\n')
    const a = await fx.fs.resolve('a.txt')
    const moved = await fx.fs.rename!(a, await fx.fs.resolve('sub/c.txt'))
    expect(await readFile(join(fx.dir, 'sub/c.txt'), 'utf8')).toBe('a\n')
    expect(moved.version).toBe((await fx.fs.stat(await fx.fs.resolve('sub/c.txt')))!.version)
    const b = await fx.fs.resolve('b.txt')
    const stale = (await fx.fs.stat(b))!
    await fx.external.write('b.txt', 'b, changed\n')
    await expect(fx.fs.remove!(b, { expected: { version: stale.version } })).rejects.toMatchObject({ code: 'FS_STALE_VERSION' })
    await fx.fs.remove!(b)
    expect((await readdir(fx.dir)).sort()).toEqual(['sub'])
    expect(await readdir(join(fx.dir, 'sub'))).toEqual(['c.txt'])
    await fx.dispose()
  })
})
