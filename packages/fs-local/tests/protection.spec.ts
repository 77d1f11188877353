import { expectFsError } from '@deepseek-ai/dsh-fs/conformance'
import { execFileSync } from 'node:child_process'
import { chmod, chown, link, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleEntry } from '../../../scripts/reliability/bundle'
import { loadAddon } from '../src/kernel-lock'
import { localFixture, run, tempDir } from './fixture'

const isRoot = process.getuid?.() === 0
const has = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
// Debian packages `acl` (setfacl, getfacl) and `attr` (setfattr, getfattr).
const hasAclTools = has('setfacl') && has('getfacl') && has('setfattr') && has('getfattr')

describe('replacing a file keeps who may read it (as the test user)', () => {
  it('refuses a file without any write bit, root included, and leaves bytes and owner alone', async () => {
    const fixture = await localFixture()
    const path = join(fixture.dir, 'locked.txt')
    await writeFile(path, 'keep\n')
    await chmod(path, 0o444)
    const before = await stat(path)
    const target = await fixture.fs.resolve('locked.txt')
    await expectFsError(fixture.fs.writeText(target, 'gone\n'), 'FS_PERMISSION_DENIED')
    await expectFsError(fixture.fs.editText(target, { oldString: 'keep', newString: 'gone', replaceAll: false }), 'FS_PERMISSION_DENIED')
    const after = await stat(path)
    expect(await readFile(path, 'utf8')).toBe('keep\n')
    expect([after.ino, after.mode & 0o7777, after.uid]).toEqual([before.ino, 0o444, before.uid])
    await fixture.dispose()
  })

  it.runIf(isRoot)('keeps a root-owned file root\'s and a foreign owner\'s file theirs when running as root', async () => {
    const fixture = await localFixture()
    for (const [name, uid, gid] of [['root.txt', 0, 0], ['nobody.txt', 65534, 65534]] as const) {
      const path = join(fixture.dir, name)
      await writeFile(path, 'old\n')
      await chown(path, uid, gid)
      await chmod(path, 0o600)
      await fixture.fs.writeText(await fixture.fs.resolve(name), 'new\n')
      const after = await stat(path)
      expect([after.uid, after.gid, after.mode & 0o7777]).toEqual([uid, gid, 0o600])
      expect(await readFile(path, 'utf8')).toBe('new\n')
    }
    await fixture.dispose()
  })

  it.skipIf(!hasAclTools)('carries a POSIX ACL and extended attributes over to the replacement [needs setfacl, setfattr]', async () => {
    expect(loadAddon('@napi-rs/xattr'), 'the xattr addon loads on this platform').toBeDefined()
    const fixture = await localFixture()
    const path = join(fixture.dir, 'acl.txt')
    await writeFile(path, 'old\n')
    await chmod(path, 0o640)
    // The owning group has nothing, uid 65534 may read and write: the mode's group bits show the mask (rw).
    await run('setfacl', ['-m', 'u:65534:rw,g::-,m::rw', path])
    await run('setfattr', ['-n', 'user.origin', '-v', 'kept', path])
    const acl = (await run('getfacl', ['-cp', path])).stdout
    const inode = (await stat(path)).ino
    await fixture.fs.editText(await fixture.fs.resolve('acl.txt'), { oldString: 'old', newString: 'new', replaceAll: false })
    expect((await stat(path)).ino, 'the file was replaced, not written in place').not.toBe(inode)
    expect(await readFile(path, 'utf8')).toBe('new\n')
    expect((await run('getfacl', ['-cp', path])).stdout).toBe(acl)
    expect(acl).toContain('group::---')
    expect((await run('getfattr', ['--only-values', '-n', 'user.origin', path])).stdout).toBe('kept')
    await fixture.dispose()
  })
})

// Root passes every mode check, so the non-root rules run in a child as uid 65534, bundled where
// it can still load the xattr addon (node_modules above it) and readable by that user.
const canDrop = isRoot && has('setpriv')
let writer: string
let cacheDir: string | undefined

beforeAll(async () => {
  if (!canDrop) return
  const cache = join(import.meta.dirname, '..', 'node_modules', '.cache')
  await mkdir(cache, { recursive: true })
  cacheDir = await mkdtemp(join(cache, 'dsh-child-'))
  await chmod(cacheDir, 0o755)
  writer = await bundleEntry(join(import.meta.dirname, 'children', 'writer.ts'), cacheDir)
})
afterAll(async () => {
  if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true })
})

async function asNobody(groups: string, ...args: string[]): Promise<{ ok: boolean; code?: string }> {
  const drop = ['--reuid=65534', '--regid=65534', groups === '' ? '--clear-groups' : `--groups=${groups}`]
  const { stdout } = await run('setpriv', [...drop, process.execPath, writer, ...args])
  return JSON.parse(stdout)
}

describe.runIf(canDrop)('replacing a file as uid 65534 refuses what an in-place writer would be refused', () => {
  let dir: string
  const file = async (name: string, uid: number, gid: number, mode: number) => {
    await writeFile(join(dir, name), `${name} before\n`)
    await chown(join(dir, name), uid, gid)
    await chmod(join(dir, name), mode)
    return stat(join(dir, name))
  }
  const unchanged = async (name: string, before: { ino: number; uid: number; gid: number }) => {
    const after = await stat(join(dir, name))
    expect(await readFile(join(dir, name), 'utf8')).toBe(`${name} before\n`)
    expect([after.ino, after.uid, after.gid]).toEqual([before.ino, before.uid, before.gid])
  }

  beforeAll(async () => {
    dir = await tempDir()
    // Writable by everyone: the kernel would let anyone rename over any file in it.
    await chmod(dir, 0o777)
  })

  it('refuses its own read-only file', async () => {
    const before = await file('mine-ro.txt', 65534, 65534, 0o444)
    expect(await asNobody('', 'write', dir, 'mine-ro.txt', 'x')).toEqual({ ok: false, code: 'FS_PERMISSION_DENIED' })
    await unchanged('mine-ro.txt', before)
  })

  it('refuses a root-owned file it may not write, though it may write the directory', async () => {
    const before = await file('root.txt', 0, 0, 0o644)
    expect(await asNobody('', 'write', dir, 'root.txt', 'x')).toEqual({ ok: false, code: 'FS_PERMISSION_DENIED' })
    await unchanged('root.txt', before)
  })

  it('refuses another user\'s file even when its mode lets it write (the replacement would change owner)', async () => {
    const before = await file('shared.txt', 0, 0, 0o666)
    expect(await asNobody('', 'write', dir, 'shared.txt', 'x')).toEqual({ ok: false, code: 'FS_PERMISSION_DENIED' })
    await unchanged('shared.txt', before)
  })

  it('refuses its own file whose group it is not in while that group may read it', async () => {
    const before = await file('group-read.txt', 65534, 0, 0o640)
    expect(await asNobody('', 'write', dir, 'group-read.txt', 'x')).toEqual({ ok: false, code: 'FS_PERMISSION_DENIED' })
    await unchanged('group-read.txt', before)
  })

  it('keeps the group of its own file when it is a member of that group', async () => {
    await file('team.txt', 65534, 100, 0o640)
    expect(await asNobody('100', 'write', dir, 'team.txt', 'after\n')).toEqual({ ok: true, operation: 'update' })
    const after = await stat(join(dir, 'team.txt'))
    expect(await readFile(join(dir, 'team.txt'), 'utf8')).toBe('after\n')
    expect([after.uid, after.gid, after.mode & 0o7777]).toEqual([65534, 100, 0o640])
  })

  it('replaces its own file of a foreign group whose group bits grant nothing', async () => {
    await file('private.txt', 65534, 0, 0o600)
    expect(await asNobody('', 'write', dir, 'private.txt', 'after\n')).toEqual({ ok: true, operation: 'update' })
    const after = await stat(join(dir, 'private.txt'))
    expect(await readFile(join(dir, 'private.txt'), 'utf8')).toBe('after\n')
    expect([after.uid, after.mode & 0o7777]).toEqual([65534, 0o600])
  })

  it.skipIf(!hasAclTools)('carries its own file\'s ACL over to the replacement [needs setfacl]', async () => {
    await file('acl.txt', 65534, 65534, 0o640)
    await run('setfacl', ['-m', 'u:0:rw,g::-,m::rw', join(dir, 'acl.txt')])
    const acl = (await run('getfacl', ['-cp', join(dir, 'acl.txt')])).stdout
    expect(await asNobody('', 'write', dir, 'acl.txt', 'after\n')).toEqual({ ok: true, operation: 'update' })
    expect(await readFile(join(dir, 'acl.txt'), 'utf8')).toBe('after\n')
    expect((await run('getfacl', ['-cp', join(dir, 'acl.txt')])).stdout).toBe(acl)
  })
})

describe('files a rename cannot replace', () => {
  it('writes through one hard link by detaching that name: the other names keep the old bytes', async () => {
    const fixture = await localFixture()
    const path = join(fixture.dir, 'a.txt')
    await writeFile(path, 'shared\n')
    await link(path, join(fixture.dir, 'b.txt'))
    const outcome = await fixture.fs.writeText(await fixture.fs.resolve('a.txt'), 'mine\n')
    expect(await readFile(path, 'utf8')).toBe('mine\n')
    expect(await readFile(join(fixture.dir, 'b.txt'), 'utf8')).toBe('shared\n')
    expect([(await stat(path)).nlink, (await stat(join(fixture.dir, 'b.txt'))).nlink]).toEqual([1, 1])
    expect(outcome.detachedLinks).toBe(1)
    const edited = await fixture.fs.editText(await fixture.fs.resolve('a.txt'), { oldString: 'mine', newString: 'again', replaceAll: false })
    expect(edited.detachedLinks).toBeUndefined()
    await fixture.dispose()
  })

  it.runIf(isRoot)('refuses a file that is a mount point with FS_PERMISSION_DENIED and leaves both files alone', async (ctx) => {
    const fixture = await localFixture()
    const source = join(await tempDir('dsh-fs-local-mount-'), 'source.txt')
    const point = join(fixture.dir, 'mounted.txt')
    await writeFile(source, 'mounted bytes\n')
    await writeFile(point, 'under the mount\n')
    try {
      await run('mount', ['--bind', source, point])
    } catch {
      await fixture.dispose()
      return ctx.skip('mount --bind is not permitted here')
    }
    try {
      const target = await fixture.fs.resolve('mounted.txt')
      await expectFsError(fixture.fs.writeText(target, 'x\n'), 'FS_PERMISSION_DENIED')
      await expectFsError(fixture.fs.editText(target, { oldString: 'mounted', newString: 'x', replaceAll: false }), 'FS_PERMISSION_DENIED')
      expect(await readFile(point, 'utf8')).toBe('mounted bytes\n')
      expect(await readFile(source, 'utf8')).toBe('mounted bytes\n')
    } finally {
      await run('umount', [point])
    }
    expect(await readFile(point, 'utf8')).toBe('under the mount\n')
    await fixture.dispose()
  })
})
