import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleEntry } from '../../../scripts/reliability/bundle'
import { run, tempDir } from './fixture'

// Root ignores mode bits, so permission cases run the provider in a child as an unprivileged user.
const unprivileged = ['--reuid=65534', '--regid=65534', '--clear-groups']
const canDrop = process.getuid?.() === 0

let writer: string

beforeAll(async () => {
  if (!canDrop) return
  const out = await tempDir('dsh-fs-local-child-')
  await chmod(out, 0o755)
  writer = await bundleEntry(join(import.meta.dirname, 'children', 'writer.ts'), out)
})

async function asNobody(...args: string[]): Promise<{ ok: boolean; code?: string; text?: string }> {
  const { stdout } = await run('setpriv', [...unprivileged, process.execPath, writer, ...args])
  return JSON.parse(stdout)
}

describe.runIf(canDrop)('permissions (as uid 65534)', () => {
  let dir: string

  beforeAll(async () => {
    dir = await tempDir()
    await chmod(dir, 0o755)
    await writeFile(join(dir, 'private.txt'), 'root only')
    await chmod(join(dir, 'private.txt'), 0o600)
    await writeFile(join(dir, 'public.txt'), 'anyone may read')
    await chmod(join(dir, 'public.txt'), 0o644)
    await mkdir(join(dir, 'open'), { mode: 0o777 })
    await chmod(join(dir, 'open'), 0o777)
  })

  it('reads a world-readable file (the setup really runs as that user)', async () => {
    expect(await asNobody('read', dir, 'public.txt')).toEqual({ ok: true, text: 'anyone may read' })
  })

  it('fails FS_PERMISSION_DENIED reading a file the user may not read', async () => {
    expect(await asNobody('read', dir, 'private.txt')).toEqual({ ok: false, code: 'FS_PERMISSION_DENIED' })
  })

  it('fails FS_PERMISSION_DENIED writing into a directory the user may not write, and leaves the file alone', async () => {
    expect(await asNobody('write', dir, 'public.txt', 'hijacked')).toEqual({ ok: false, code: 'FS_PERMISSION_DENIED' })
    expect(await asNobody('write', dir, 'new.txt', 'x')).toEqual({ ok: false, code: 'FS_PERMISSION_DENIED' })
    expect(await readFile(join(dir, 'public.txt'), 'utf8')).toBe('anyone may read')
  })

  it('writes where the user may, creating a file it owns', async () => {
    expect(await asNobody('write', dir, 'open/mine.txt', 'mine')).toEqual({ ok: true, operation: 'create' })
    expect(await readFile(join(dir, 'open', 'mine.txt'), 'utf8')).toBe('mine')
  })
})
