import { FsError } from '@deepseek-ai/dsh-fs'
import { mkdir, readFile, rename, rm, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { localFixture, tempDir } from './fixture'

// A directory a write was published into stays open for a moment, for the next write there. Each
// case writes once (the directory is held), changes what the path names, and writes again: the
// second write must land where the path leads now, as if nothing had been held.
describe('directories held between writes', () => {
  async function twoWrites(change: (dir: string) => Promise<void>, rooted = false) {
    const fx = await localFixture({}, rooted)
    await fx.external.mkdir('pkg')
    await fx.fs.writeText(await fx.fs.resolve('pkg/a.txt'), 'first\n', { expected: { kind: 'createIfAbsent' } })
    await change(fx.path('pkg'))
    return { fx, second: () => fx.fs.resolve('pkg/a.txt').then((target) => fx.fs.writeText(target, 'second\n')) }
  }

  it('writes into the directory now at the path after the held one was moved away', async () => {
    const { fx, second } = await twoWrites(async (dir) => {
      await rename(dir, `${dir}.old`)
      await mkdir(dir)
    })
    await second()
    expect(await readFile(fx.path('pkg/a.txt'), 'utf8')).toBe('second\n')
    expect(await readFile(fx.path('pkg.old/a.txt'), 'utf8')).toBe('first\n')
  })

  it('writes into a directory made again after the held one was deleted', async () => {
    const { fx, second } = await twoWrites(async (dir) => {
      await rm(dir, { recursive: true })
      await mkdir(dir)
    })
    await second()
    expect(await readFile(fx.path('pkg/a.txt'), 'utf8')).toBe('second\n')
  })

  it('refuses the write once the path leads outside the root, and writes nothing there', async () => {
    const outside = await tempDir('dsh-held-outside-')
    const { fx, second } = await twoWrites(async (dir) => {
      await rename(dir, `${dir}.old`)
      await symlink(outside, dir)
    }, true)
    const outcome = await second().then(() => undefined, (error: unknown) => error)
    expect(FsError.is(outcome, 'FS_OUTSIDE_ROOT'), String(outcome)).toBe(true)
    await expect(readFile(join(outside, 'a.txt'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' })
    expect(await readFile(fx.path('pkg.old/a.txt'), 'utf8')).toBe('first\n')
  })

  it('keeps many directories apart when more are written than are held', async () => {
    const fx = await localFixture()
    const dirs = Array.from({ length: 40 }, (_, n) => `d${n}`)
    for (const dir of dirs) await fx.external.mkdir(dir)
    for (const round of [1, 2]) {
      await Promise.all(dirs.map(async (dir) => fx.fs.writeText(await fx.fs.resolve(`${dir}/f.txt`), `${dir} ${round}\n`)))
    }
    for (const dir of dirs) expect(await readFile(fx.path(`${dir}/f.txt`), 'utf8')).toBe(`${dir} 2\n`)
  })
})
