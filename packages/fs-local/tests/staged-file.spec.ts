import { lstat, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { beforeEachPublish } from '../src/instrument'
import { sharedLiveness } from '../src/liveness'
import { SOCKET_AFTER_MS, STAGING_PREFIX } from '../src/staging'
import { localFixture } from './fixture'

const staging = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith(STAGING_PREFIX) && !name.startsWith(`${STAGING_PREFIX}lock.`)).sort()

// A replacement is staged in a file beside its target; its writer's socket joins it only when the
// write is still staged after SOCKET_AFTER_MS (a sweep leaves a young staged file alone meanwhile).
describe('a staged replacement', () => {
  it('is a file owned by its writer, gets its socket once held past SOCKET_AFTER_MS, and leaves nothing once published', async () => {
    const fx = await localFixture({}, true)
    await fx.external.write('t.txt', 'old\n')
    const target = await fx.fs.resolve('t.txt')
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let staged!: () => void
    const reached = new Promise<void>((resolve) => (staged = resolve))
    beforeEachPublish(fx.fs.disk, async () => {
      staged()
      await held
    })
    const writing = fx.fs.writeText(target, 'new\n')
    await reached
    const [file, ...rest] = await staging(fx.dir)
    expect(rest).toEqual([])
    expect(file).toMatch(/^\.dsh-staging\.f\./)
    const stats = await lstat(join(fx.dir, file!))
    expect(stats.isFile() && stats.size).toBe(4)
    expect(stats.mode & 0o777).toBe((await lstat(join(fx.dir, 't.txt'))).mode & 0o777)
    await new Promise((resolve) => setTimeout(resolve, SOCKET_AFTER_MS + 300))
    expect(await staging(fx.dir)).toEqual([file, `${file}.live`])
    // A hard link to this process's one socket, which listens as long as the process lives.
    expect((await lstat(join(fx.dir, `${file}.live`))).ino).toBe((await lstat(sharedLiveness()!)).ino)
    release()
    expect((await writing).operation).toBe('update')
    expect(await readFile(join(fx.dir, 't.txt'), 'utf8')).toBe('new\n')
    expect(await staging(fx.dir)).toEqual([])
  })
})
