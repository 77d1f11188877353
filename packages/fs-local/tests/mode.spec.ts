import { chmod, chown, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleEntry } from '../../../scripts/reliability/bundle'
import { localFixture, run, tempDir } from './fixture'

let writer: string

beforeAll(async () => {
  writer = await bundleEntry(join(import.meta.dirname, 'children', 'writer.ts'), await tempDir('dsh-fs-local-child-'))
})

/** Runs the writer in a shell with `umask` set, since a test worker cannot change its own umask. */
async function writeWithUmask(umask: string, dir: string, name: string, content: string): Promise<void> {
  const { stdout } = await run('sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, writer, 'write', dir, name, content])
  expect(JSON.parse(stdout)).toMatchObject({ ok: true })
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777

describe('modes and owners', () => {
  it('creates new files 0o666 minus the umask, like any editor', async () => {
    const dir = await tempDir()
    await writeWithUmask('022', dir, 'a.txt', 'a')
    await writeWithUmask('077', dir, 'b.txt', 'b')
    await writeWithUmask('002', dir, 'sub/c.txt', 'c')
    expect(await modeOf(join(dir, 'a.txt'))).toBe(0o644)
    expect(await modeOf(join(dir, 'b.txt'))).toBe(0o600)
    expect(await modeOf(join(dir, 'sub/c.txt'))).toBe(0o664)
  })

  it('keeps the mode of a file it replaces, whatever the umask', async () => {
    const dir = await tempDir()
    for (const [name, mode] of [['script.sh', 0o755], ['private.txt', 0o600], ['shared.txt', 0o664], ['odd.txt', 0o4751]] as const) {
      await writeFile(join(dir, name), 'old')
      await chmod(join(dir, name), mode)
      await writeWithUmask('077', dir, name, 'new')
      expect(await readFile(join(dir, name), 'utf8')).toBe('new')
      expect(await modeOf(join(dir, name))).toBe(mode)
    }
  })

  it.runIf(process.getuid?.() === 0)('keeps the owner and group of a file it replaces when running as root', async () => {
    const fixture = await localFixture()
    const path = join(fixture.dir, 'owned.txt')
    await writeFile(path, 'old\n')
    await chown(path, 65534, 65534)
    await chmod(path, 0o640)
    await fixture.fs.editText(await fixture.fs.resolve('owned.txt'), { oldString: 'old', newString: 'new', replaceAll: false })
    const after = await stat(path)
    expect([after.uid, after.gid, after.mode & 0o7777]).toEqual([65534, 65534, 0o640])
    expect(await readFile(path, 'utf8')).toBe('new\n')
    await fixture.dispose()
  })
})
