import { appendFileSync, mkdtempSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { INLINE_CALLS } from './calls'
import { INLINE_OPEN_BYTES, openRegular } from './open'
import { readAll, readSmallInline } from './probe'

const dir = mkdtempSync(join(tmpdir(), 'dsh-open-'))
const local = process.platform === 'linux' && [0xef53, 0x58465342, 0x9123683e, 0x01021994].includes(Number(statfsSync(dir).type))

// A small file opened on the loop thread gets a bare descriptor behind the `FileHandle` calls.
describe.runIf(local)('a file opened inline', () => {
  it('reads, stats and closes like a FileHandle, and refuses every call once closed', async () => {
    writeFileSync(join(dir, 'small.txt'), 'hello\n')
    const opened = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt', { inline: true })
    expect(opened.handle.constructor.name).not.toBe('FileHandle')
    expect(opened.real).toBe(join(dir, 'small.txt'))
    const buffer = Buffer.alloc(16)
    expect(await opened.handle.read(buffer, 0, 16, 0)).toEqual({ bytesRead: 6 })
    expect(buffer.subarray(0, 6).toString()).toBe('hello\n')
    expect((await opened.handle.stat({ bigint: true })).size).toBe(6n)
    const closing = opened.handle.close()
    expect(opened.handle.close()).toBe(closing)
    await closing
    await expect(opened.handle.read(buffer, 0, 16, 0)).rejects.toMatchObject({ code: 'EBADF' })
    await expect(opened.handle.stat({ bigint: true })).rejects.toMatchObject({ code: 'EBADF' })
    // Closed on the loop thread instead: the same refusals afterwards.
    const again = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt', { inline: true })
    again.handle.closeInline!()
    await expect(again.handle.read(buffer, 0, 16, 0)).rejects.toMatchObject({ code: 'EBADF' })
    await again.handle.close()
  })

  it('closes only after the reads in flight have returned', async () => {
    writeFileSync(join(dir, 'small.txt'), 'x'.repeat(1000))
    const opened = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt', { inline: true })
    const reads = Array.from({ length: 8 }, (_, i) => opened.handle.read(Buffer.alloc(100), 0, 100, i * 100))
    await opened.handle.close()
    expect((await Promise.all(reads)).map((read) => read.bytesRead)).toEqual(Array(8).fill(100))
  })

  it('leaves a file above the bound to a FileHandle', async () => {
    writeFileSync(join(dir, 'large.txt'), Buffer.alloc(Number(INLINE_OPEN_BYTES) + 1, 0x61))
    const opened = await openRegular(INLINE_CALLS, join(dir, 'large.txt'), 'large.txt', { inline: true })
    expect(opened.handle.constructor.name).toBe('FileHandle')
    await opened.handle.close()
  })

  it('is read whole in one positioned read, or left to readAll from its start once it grew', async () => {
    writeFileSync(join(dir, 'small.txt'), 'abc\n')
    const same = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt', { inline: true })
    expect(Buffer.from(readSmallInline(INLINE_CALLS, same)!).toString()).toBe('abc\n')
    await same.handle.close()
    const grown = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt', { inline: true })
    appendFileSync(join(dir, 'small.txt'), 'def\n')
    expect(readSmallInline(INLINE_CALLS, grown)).toBeUndefined()
    expect(Buffer.from(await readAll(grown, 1 << 20, 'small.txt')).toString()).toBe('abc\ndef\n')
    await grown.handle.close()
  })
})
