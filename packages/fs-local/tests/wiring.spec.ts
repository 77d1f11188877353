import { FileSystem } from '@deepseek-ai/dsh-fs'
import { expectFsError } from '@deepseek-ai/dsh-fs/conformance'
import { Context } from 'cordis'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as entry from '../src'
import DefaultExport, { LocalDisk, LocalFileSystem } from '../src'
import { tempDir } from './fixture'

describe('Cordis wiring', () => {
  it('provides ctx.fs through ctx.plugin with a zod-validated config, and removes it on dispose', async () => {
    expect(DefaultExport).toBe(LocalFileSystem)
    const dir = await tempDir()
    const ctx = new Context()
    const fiber = await ctx.plugin(LocalFileSystem, { cwd: dir, root: dir })
    expect(ctx.fs).toBeInstanceOf(FileSystem)
    const target = await ctx.fs.resolve('hello.txt')
    expect(target.targetKey).toBe(join(dir, 'hello.txt'))
    await ctx.fs.writeText(target, 'hi')
    expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('hi')
    await expectFsError(ctx.fs.resolve('../outside.txt'), 'FS_OUTSIDE_ROOT')
    await fiber.dispose()
    expect(ctx.get('fs')).toBeUndefined()
    await rm(dir, { recursive: true })
  })

  it('builds its own I/O core from the config: the constructor takes no test hook, and the entry exports none', async () => {
    const dir = await tempDir()
    const planted = new LocalDisk({ cwd: '/', diffMaxBytes: 0, maxTextBytes: 1 })
    const fs = new (LocalFileSystem as unknown as new (...args: unknown[]) => LocalFileSystem)(new Context(), { cwd: dir }, planted)
    expect(fs.disk).not.toBe(planted)
    expect(fs.disk.cwd).toBe(dir)
    expect(Object.keys(entry)).not.toContain('beforeEachPublish')
  })

  it('defaults every field, so a loader entry without config works', async () => {
    const ctx = new Context()
    await ctx.plugin(LocalFileSystem)
    expect((await ctx.fs.resolve('x')).displayPath).toBe(join(process.cwd(), 'x'))
  })

  it('rejects a bad config instead of starting', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(LocalFileSystem, { cwd: 42 } as never)).rejects.toThrow()
    await expect(ctx.plugin(LocalFileSystem, { diffMaxBytes: -1 })).rejects.toThrow()
    expect(ctx.get('fs')).toBeUndefined()
  })

  it('fails FS_INVALID_PATH for a name too long for the OS and FS_NOT_DIRECTORY below a file', async () => {
    const dir = await tempDir()
    const ctx = new Context()
    await ctx.plugin(LocalFileSystem, { cwd: dir })
    await expectFsError(ctx.fs.resolve('n'.repeat(300)), 'FS_INVALID_PATH')
    // A path longer than PATH_MAX whose components are each fine: resolvable, but no syscall takes it.
    await expectFsError(ctx.fs.writeText(await ctx.fs.resolve(`${'d/'.repeat(2100)}x`), 'x'), 'FS_INVALID_PATH')
    await ctx.fs.writeText(await ctx.fs.resolve('file'), 'x')
    await expectFsError(ctx.fs.writeText(await ctx.fs.resolve('file/child.txt'), 'x'), 'FS_NOT_DIRECTORY')
    await expectFsError(ctx.fs.readText(await ctx.fs.resolve('file/child.txt')), 'FS_NOT_DIRECTORY')
    expect(await readFile(join(dir, 'file'), 'utf8')).toBe('x')
    await rm(dir, { recursive: true })
  })
})

describe('size bounds', () => {
  it('reports no `before` text above diffMaxBytes but still writes and edits', async () => {
    const dir = await tempDir()
    const ctx = new Context()
    await ctx.plugin(LocalFileSystem, { cwd: dir, diffMaxBytes: 8 })
    const target = await ctx.fs.resolve('f.txt')
    expect(await ctx.fs.writeText(target, 'short')).toMatchObject({ operation: 'create', before: null })
    expect(await ctx.fs.writeText(target, 'a longer text')).toMatchObject({ before: 'short', after: 'a longer text' })
    expect(await ctx.fs.writeText(target, 'next')).toMatchObject({ before: null, after: 'next' })
    await ctx.fs.writeText(target, 'x'.repeat(20))
    const edit = await ctx.fs.editText(target, { oldString: 'xx', newString: 'y', replaceAll: true })
    expect(edit).toMatchObject({ before: null, after: 'y'.repeat(10), replacements: 10 })
    expect(await readFile(join(dir, 'f.txt'), 'utf8')).toBe('y'.repeat(10))
  })

  it('fails FS_TOO_LARGE reading, editing or writing a file above maxTextBytes, and streams it instead', async () => {
    const dir = await tempDir()
    const ctx = new Context()
    await ctx.plugin(LocalFileSystem, { cwd: dir, maxTextBytes: 1024 })
    const target = await ctx.fs.resolve('big.txt')
    await writeFile(join(dir, 'big.txt'), 'z'.repeat(2048))
    await expectFsError(ctx.fs.readText(target), 'FS_TOO_LARGE')
    await expectFsError(ctx.fs.editText(target, { oldString: 'z', newString: 'a', replaceAll: true }), 'FS_TOO_LARGE')
    await expectFsError(ctx.fs.editTextMany(target, [{ oldString: 'z', newString: 'a', replaceAll: true }]), 'FS_TOO_LARGE')
    // A write is bounded as an edit's result is: 1,025 bytes (a 2-byte character at the end) is one too many.
    const over = await expectFsError(ctx.fs.writeText(await ctx.fs.resolve('new.txt'), `${'y'.repeat(1023)}é`), 'FS_TOO_LARGE')
    expect(over.message).toContain('cannot be written with 1,025 bytes of content (1.0 KiB): the limit for a text file is 1,024 bytes; nothing was changed')
    expect(await readFile(join(dir, 'new.txt')).catch(() => undefined)).toBeUndefined()
    await ctx.fs.writeText(await ctx.fs.resolve('new.txt'), 'y'.repeat(1024))
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('y'.repeat(1024))
    let streamed = ''
    for await (const chunk of ctx.fs.streamText(target)) streamed += chunk
    expect(streamed).toBe('z'.repeat(2048))
  })
})
