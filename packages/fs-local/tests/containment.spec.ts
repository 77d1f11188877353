import { expectFsError } from '@deepseek-ai/dsh-fs/conformance'
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type LocalFixture, localFixture, tempDir } from './fixture'

describe('containment root', () => {
  let fixture: LocalFixture
  let outside: string

  beforeEach(async () => {
    fixture = await localFixture({}, true)
    outside = await tempDir('dsh-fs-local-outside-')
    await writeFile(join(outside, 'secret.txt'), 'secret')
  })
  afterEach(async () => {
    await fixture.dispose()
  })

  it('refuses `..` and absolute paths that leave the root', async () => {
    await expectFsError(fixture.fs.resolve('../x.txt'), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.resolve(join(outside, 'secret.txt')), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.resolve('/etc/passwd'), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.resolve('x.txt', { cwd: outside }), 'FS_OUTSIDE_ROOT')
    // `..` that stays inside is fine.
    expect((await fixture.fs.resolve('a/../b.txt')).targetKey).toBe(join(fixture.dir, 'b.txt'))
  })

  it('refuses a symlinked file or directory whose real location is outside', async () => {
    await symlink(join(outside, 'secret.txt'), join(fixture.dir, 'file-link'))
    await symlink(outside, join(fixture.dir, 'dir-link'))
    await expectFsError(fixture.fs.resolve('file-link'), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.resolve('dir-link/secret.txt'), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.resolve('dir-link/new.txt'), 'FS_OUTSIDE_ROOT')
  })

  it('inspects nothing through a link that leaves the root: no info, no text', async () => {
    await symlink(join(outside, 'secret.txt'), join(fixture.dir, 'file-link'))
    await symlink(outside, join(fixture.dir, 'dir-link'))
    await expectFsError(fixture.fs.inspect('file-link', { textUpTo: 1024 }), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.inspect('dir-link/secret.txt', { textUpTo: 1024 }), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.inspect(join(outside, 'secret.txt'), { textUpTo: 1024 }), 'FS_OUTSIDE_ROOT')
  })

  it('lists a link that leaves the root as `other`, without following it', async () => {
    await symlink(outside, join(fixture.dir, 'dir-link'))
    await writeFile(join(fixture.dir, 'in.txt'), 'in')
    const entries = await fixture.fs.listDir(await fixture.fs.resolve('.'))
    expect(entries.map((entry) => [entry.name, entry.type])).toEqual([['dir-link', 'other'], ['in.txt', 'file']])
    expect(entries[0]!.version).toBeUndefined()
  })

  it('re-checks the real parent right before publication when a directory is swapped for a link', async () => {
    await mkdir(join(fixture.dir, 'sub'))
    const target = await fixture.fs.resolve('sub/new.txt')
    fixture.beforeNextPublish!(async () => {
      await rename(join(fixture.dir, 'sub'), join(fixture.dir, 'sub.moved'))
      await symlink(outside, join(fixture.dir, 'sub'))
    })
    await expectFsError(fixture.fs.writeText(target, 'escaped?'), 'FS_OUTSIDE_ROOT')
    await expect(readFile(join(outside, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('refuses to read or write through a directory swapped for a link after resolve', async () => {
    await mkdir(join(fixture.dir, 'sub'))
    await writeFile(join(fixture.dir, 'sub', 'secret.txt'), 'inside')
    const target = await fixture.fs.resolve('sub/secret.txt')
    await rename(join(fixture.dir, 'sub'), join(fixture.dir, 'sub.moved'))
    await symlink(outside, join(fixture.dir, 'sub'))
    await expectFsError(fixture.fs.readText(target), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.stat(target), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.writeText(target, 'overwritten'), 'FS_OUTSIDE_ROOT')
    await expectFsError(fixture.fs.editText(target, { oldString: 'secret', newString: 'x', replaceAll: false }), 'FS_OUTSIDE_ROOT')
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret')
  })

  it('follows symlinks that stay inside the root', async () => {
    await mkdir(join(fixture.dir, 'real'))
    await writeFile(join(fixture.dir, 'real', 'f.txt'), 'old')
    await symlink('real', join(fixture.dir, 'alias'))
    const target = await fixture.fs.resolve('alias/f.txt')
    expect(target.targetKey).toBe(join(fixture.dir, 'real', 'f.txt'))
    await fixture.fs.writeText(target, 'new')
    expect(await readFile(join(fixture.dir, 'real', 'f.txt'), 'utf8')).toBe('new')
  })
})
