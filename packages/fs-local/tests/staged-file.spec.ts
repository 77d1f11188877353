import { lstat, open, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { reclaimStaging, STAGING_PREFIX } from '../src'
import { holdAfterStaging } from './hooks'
import { tryHold } from '../src/kernel-lock'
import { localFixture } from './fixture'

const staging = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith(STAGING_PREFIX)).sort()

// A replacement is staged in a file beside its target, under its writer's kernel lock from its creation on.
describe('a staged replacement', () => {
  it('is a file with the old mode, locked by its writer so no sweep takes it, and leaves nothing once published', async () => {
    const fx = await localFixture({}, true)
    await fx.external.write('t.txt', 'old\n')
    const target = await fx.fs.resolve('t.txt')
    const { reached, release } = holdAfterStaging(fx.fs.disk)
    const writing = fx.fs.writeText(target, 'new\n')
    await reached
    const [file, ...rest] = await staging(fx.dir)
    expect(rest).toEqual([])
    expect(file).toMatch(/^\.dsh-staging\.f\.[0-9a-f]{16}\.[0-9a-f]{8}$/)
    const stats = await lstat(join(fx.dir, file!))
    expect(stats.isFile() && stats.size).toBe(4)
    expect(stats.mode & 0o777).toBe((await lstat(join(fx.dir, 't.txt'))).mode & 0o777)
    // Another open file cannot lock it while its writer lives: that is what a sweep tries.
    const probe = await open(join(fx.dir, file!), 'r')
    expect(tryHold(probe.fd, true)).toBe('busy')
    await probe.close()
    expect(await reclaimStaging(fx.dir)).toBe(0)
    expect((await fx.fs.listDir(await fx.fs.resolve('.'))).map((entry) => entry.name)).toEqual(['t.txt'])
    expect(await staging(fx.dir)).toEqual([file])
    release()
    expect((await writing).operation).toBe('update')
    expect(await readFile(join(fx.dir, 't.txt'), 'utf8')).toBe('new\n')
    expect(await staging(fx.dir)).toEqual([])
  })
})
