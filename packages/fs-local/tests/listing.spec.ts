import { expectFsError } from '@deepseek-ai/dsh-fs/conformance'
import { mkdir, open, readdir, rename, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { deadStaging, localFixture, tempDir } from './fixture'

describe('listDir', () => {
  it('returns the first entries in name order up to the limit, and counts the rest', async () => {
    const fixture = await localFixture()
    for (const name of ['e', 'a', '.hidden', 'c', 'b', 'd']) await writeFile(join(fixture.dir, name), name)
    const dir = await fixture.fs.resolve('.')
    const cut = await fixture.fs.listDir(dir, undefined, { limit: 2 })
    expect(cut.map((entry) => entry.name)).toEqual(['.hidden', 'a'])
    expect(cut.omitted).toBe(4)
    const visible = await fixture.fs.listDir(dir, undefined, { limit: 3, hidden: false })
    expect(visible.map((entry) => entry.name)).toEqual(['a', 'b', 'c'])
    expect(visible.omitted).toBe(2)
    const whole = await fixture.fs.listDir(dir)
    expect(whole.map((entry) => entry.name)).toEqual(['.hidden', 'a', 'b', 'c', 'd', 'e'])
    expect(whole.omitted).toBeUndefined()
    await fixture.dispose()
  })

  it('never sweeps a directory outside the root that a listed directory was swapped for', async () => {
    const fixture = await localFixture({}, true)
    const outside = await tempDir('dsh-fs-local-outside-')
    // Residue of a writer that is certainly gone (nobody holds its lock): a sweep there would remove it.
    const residue = await deadStaging(outside)
    await mkdir(join(fixture.dir, 'sub'))
    const target = await fixture.fs.resolve('sub')
    await rename(join(fixture.dir, 'sub'), join(fixture.dir, 'sub.moved'))
    await symlink(outside, join(fixture.dir, 'sub'))
    await expectFsError(fixture.fs.listDir(target), 'FS_OUTSIDE_ROOT')
    expect(await readdir(outside)).toEqual([residue])
    await fixture.dispose()
  })

  it('still reclaims dead writers\' residue in a directory it lists inside the root', async () => {
    const fixture = await localFixture({}, true)
    await deadStaging(fixture.dir)
    await deadStaging(fixture.dir)
    await writeFile(join(fixture.dir, 'f.txt'), 'f')
    expect((await fixture.fs.listDir(await fixture.fs.resolve('.'))).map((entry) => entry.name)).toEqual(['f.txt'])
    expect(await readdir(fixture.dir)).toEqual(['f.txt'])
    await fixture.dispose()
  })
})

describe('FS_OUTSIDE_ROOT texts', () => {
  it('say the path is outside the root, never where it really leads', async () => {
    const fixture = await localFixture({}, true)
    const outside = await tempDir('dsh-fs-local-outside-')
    const secret = join(outside, 'other-process-secret.txt')
    await writeFile(secret, 'secret')
    await symlink(secret, join(fixture.dir, 'link'))
    // An open descriptor: `/proc/self/fd/<n>` leads to the file it holds.
    const held = await open(secret, 'r')
    try {
      for (const path of ['link', `/proc/self/fd/${held.fd}`]) {
        const error = await expectFsError(fixture.fs.resolve(path), 'FS_OUTSIDE_ROOT')
        expect(error.message).not.toContain('other-process-secret')
        expect(error.message).not.toContain(outside)
        expect(error.message).toContain(fixture.dir)
      }
    } finally {
      await held.close()
    }
    await fixture.dispose()
  })
})
