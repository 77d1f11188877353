import { execFileSync } from 'node:child_process'
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useEmulator } from './fixture.js'

const f = useEmulator()

describe('files API through the real SDK', () => {
  it('writes and reads back text, bytes that are not UTF-8, and empty files', async () => {
    const bytes = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0x0d, 0x0a])
    await f.sandbox.files.write(join(f.root, 'bin.dat'), bytes.buffer)
    expect(await readFile(join(f.root, 'bin.dat'))).toEqual(Buffer.from(bytes))
    expect(await f.sandbox.files.read(join(f.root, 'bin.dat'), { format: 'bytes' })).toEqual(bytes)
    await f.sandbox.files.write(join(f.root, 'empty.txt'), '')
    expect(await f.sandbox.files.read(join(f.root, 'empty.txt'))).toBe('')
    await f.sandbox.files.write(join(f.root, 'bom.txt'), '\ufeffa\r\nb')
    expect(await readFile(join(f.root, 'bom.txt'), 'utf8')).toBe('\ufeffa\r\nb')
  })

  it('resolves relative paths and ~ against the home, and creates missing parents', async () => {
    const info = await f.sandbox.files.write('deep/er/x.txt', 'x')
    expect(info).toMatchObject({ path: join(f.root, 'deep/er/x.txt'), name: 'x.txt', type: 'file' })
    expect(await readFile(join(f.root, 'deep/er/x.txt'), 'utf8')).toBe('x')
    expect(await f.sandbox.files.read('~/deep/er/x.txt')).toBe('x')
  })

  it('overwrites in place, keeping the inode, as envd truncates rather than replaces', async () => {
    const path = join(f.root, 'inplace.txt')
    await writeFile(path, 'first version')
    const before = await stat(path)
    await f.sandbox.files.write(path, 'second')
    const after = await stat(path)
    expect(after.ino).toBe(before.ino)
    expect(await readFile(path, 'utf8')).toBe('second')
  })

  it('uploads several files in one multipart request, and streams with octet-stream and gzip', async () => {
    f.emulator.resetRequests()
    await f.sandbox.files.write([
      { path: join(f.root, 'multi/a.txt'), data: 'A' },
      { path: join(f.root, 'multi/b "q".txt'), data: 'B' },
    ])
    expect(f.emulator.stats()).toEqual({ 'POST /files': 1 })
    expect(await readFile(join(f.root, 'multi/a.txt'), 'utf8')).toBe('A')
    // undici percent-escapes quotes in multipart filenames and envd (Go's mime) never decodes
    // them: a multipart upload of such a path lands on a different name. Providers beware.
    expect(await readFile(join(f.root, 'multi/b %22q%22.txt'), 'utf8')).toBe('B')
    await f.sandbox.files.write(join(f.root, 'octet.txt'), 'streamed', { useOctetStream: true })
    await f.sandbox.files.write(join(f.root, 'gz.txt'), 'zipped', { gzip: true })
    expect(await readFile(join(f.root, 'octet.txt'), 'utf8')).toBe('streamed')
    expect(await readFile(join(f.root, 'gz.txt'), 'utf8')).toBe('zipped')
    expect(await f.sandbox.files.read(join(f.root, 'gz.txt'), { gzip: true })).toBe('zipped')
  })

  it('lists a directory to the requested depth, with sizes, modes and nanosecond mtimes', async () => {
    const dir = join(f.root, 'listing')
    await mkdir(join(dir, 'sub/inner'), { recursive: true })
    await writeFile(join(dir, 'one.txt'), '12345')
    await writeFile(join(dir, 'sub/two.txt'), '')
    const shallow = await f.sandbox.files.list(dir)
    expect(shallow.map((e) => [e.name, e.type])).toEqual([['one.txt', 'file'], ['sub', 'dir']])
    expect(shallow[0]).toMatchObject({ path: join(dir, 'one.txt'), size: 5, permissions: '-rw-r--r--', mode: 0o644 })
    const st = await stat(join(dir, 'one.txt'))
    expect(shallow[0]!.modifiedTime!.getTime()).toBe(Math.floor(st.mtimeMs))
    const deep = await f.sandbox.files.list(dir, { depth: 2 })
    expect(deep.map((e) => e.path)).toEqual(['one.txt', 'sub', 'sub/inner', 'sub/two.txt'].map((p) => join(dir, p)))
  })

  it('reports a symlink with its target type and resolved path, and hides dangling links and FIFOs from list', async () => {
    const dir = join(f.root, 'links')
    await mkdir(dir)
    await writeFile(join(dir, 'target.txt'), 'abc')
    await symlink('target.txt', join(dir, 'link'))
    await symlink('missing', join(dir, 'dangling'))
    execFileSync('mkfifo', [join(dir, 'pipe')])
    const info = await f.sandbox.files.getInfo(join(dir, 'link'))
    expect(info).toMatchObject({ type: 'file', path: join(dir, 'link'), symlinkTarget: join(dir, 'target.txt'), permissions: 'Lrwxrwxrwx' })
    expect((await f.sandbox.files.getInfo(join(dir, 'dangling'))).type).toBeUndefined()
    expect((await f.sandbox.files.getInfo(join(dir, 'pipe'))).type).toBeUndefined()
    expect((await f.sandbox.files.list(dir)).map((e) => e.name)).toEqual(['link', 'target.txt'])
  })

  it('answers exists, makeDir, rename and remove with envd semantics', async () => {
    expect(await f.sandbox.files.exists(join(f.root, 'nope'))).toBe(false)
    expect(await f.sandbox.files.makeDir(join(f.root, 'made/inner'))).toBe(true)
    expect(await f.sandbox.files.makeDir(join(f.root, 'made/inner'))).toBe(false)
    expect(await f.sandbox.files.exists(join(f.root, 'made/inner'))).toBe(true)
    await writeFile(join(f.root, 'made/file.txt'), 'moved')
    const moved = await f.sandbox.files.rename(join(f.root, 'made/file.txt'), join(f.root, 'elsewhere/new/file.txt'))
    expect(moved).toMatchObject({ type: 'file', path: join(f.root, 'elsewhere/new/file.txt'), size: 5 })
    expect(await readFile(join(f.root, 'elsewhere/new/file.txt'), 'utf8')).toBe('moved')
    await f.sandbox.files.remove(join(f.root, 'made'))
    expect(await f.sandbox.files.exists(join(f.root, 'made'))).toBe(false)
    await expect(f.sandbox.files.remove(join(f.root, 'made'))).resolves.toBeUndefined()
  })

  it('watches a directory and reports created files', async () => {
    const dir = join(f.root, 'watched')
    await mkdir(dir)
    const events: { name: string; type: string }[] = []
    const handle = await f.sandbox.files.watchDir(dir, (e) => { events.push({ name: e.name, type: e.type }) })
    await writeFile(join(dir, 'new.txt'), 'x')
    await expect.poll(() => events.some((e) => e.name === 'new.txt' && e.type === 'create')).toBe(true)
    await handle.stop()
  })

  it('holds a read of a FIFO open, as envd blocks opening one, until the client gives up', async () => {
    const fifo = join(f.root, 'blocking-fifo')
    execFileSync('mkfifo', [fifo])
    const started = Date.now()
    await expect(f.sandbox.files.read(fifo, { requestTimeoutMs: 300 })).rejects.toSatisfy(
      // The fetch deadline fires, not an SDK error class: a DOMException named TimeoutError.
      (error) => error instanceof DOMException && error.name === 'TimeoutError')
    expect(Date.now() - started).toBeGreaterThanOrEqual(280)
    expect(await f.sandbox.isRunning()).toBe(true)
  })

  it('reports sandbox health', async () => {
    expect(await f.sandbox.isRunning()).toBe(true)
  })
})
