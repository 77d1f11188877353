import { appendFileSync, constants, mkdtempSync, readFileSync, statfsSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Descriptor, INLINE_CALLS, INLINE_IO_BYTES, POOLED_CALLS } from './calls'
import { openRegular } from './open'
import { readAll, readSmallInline } from './probe'

const dir = mkdtempSync(join(tmpdir(), 'dsh-open-'))
const local = process.platform === 'linux' && [0xef53, 0x58465342, 0x9123683e, 0x01021994].includes(Number(statfsSync(dir).type))

// Where calls are inline, a file is opened on the loop thread and its small reads and writes run there; fsync and large ones go to the pool.
describe.runIf(local)('a file opened inline', () => {
  it('reads, stats and closes on a bare descriptor, and refuses every call once closed', async () => {
    writeFileSync(join(dir, 'small.txt'), 'hello\n')
    const opened = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt')
    expect(opened.handle).toBeInstanceOf(Descriptor)
    expect(opened.handle.inline).toBe(true)
    expect(opened.real).toBe(join(dir, 'small.txt'))
    const buffer = Buffer.alloc(16)
    expect(await opened.handle.read(buffer, 0, 16, 0)).toEqual({ bytesRead: 6 })
    expect(buffer.subarray(0, 6).toString()).toBe('hello\n')
    expect((await opened.handle.stat()).size).toBe(6n)
    const closing = opened.handle.close()
    expect(opened.handle.close()).toBe(closing)
    await closing
    await expect(opened.handle.read(buffer, 0, 16, 0)).rejects.toMatchObject({ code: 'EBADF' })
    await expect(opened.handle.stat()).rejects.toMatchObject({ code: 'EBADF' })
    await expect(opened.handle.sync()).rejects.toMatchObject({ code: 'EBADF' })
  })

  it('closes only after the pooled calls in flight have returned', async () => {
    writeFileSync(join(dir, 'large.txt'), Buffer.alloc(4 * INLINE_IO_BYTES, 0x61))
    const opened = await openRegular(INLINE_CALLS, join(dir, 'large.txt'), 'large.txt')
    // Reads above the inline bound go to the pool: the close waits for every one.
    const reads = Array.from({ length: 3 }, (_, i) => opened.handle.read(Buffer.alloc(INLINE_IO_BYTES + 1), 0, INLINE_IO_BYTES + 1, i * 1000))
    await opened.handle.close()
    expect((await Promise.all(reads)).map((read) => read.bytesRead)).toEqual(Array(3).fill(INLINE_IO_BYTES + 1))
  })

  it('writes, changes mode and syncs through the same descriptor, inline or pooled alike', async () => {
    for (const calls of [INLINE_CALLS, POOLED_CALLS]) {
      const path = join(dir, `written-${String(calls.inline)}.txt`)
      const handle = await calls.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600)
      expect(handle.inline).toBe(calls.inline)
      const big = Buffer.alloc(INLINE_IO_BYTES + 10, 0x62)
      expect(await handle.write(Buffer.from('head\n'), 0, 5)).toEqual({ bytesWritten: 5 })
      let offset = 0
      while (offset < big.length) offset += (await handle.write(big, offset, big.length - offset)).bytesWritten
      await handle.chmod(0o640)
      await handle.sync()
      await handle.close()
      expect(readFileSync(path).length).toBe(5 + big.length)
      expect(statSync(path).mode & 0o777).toBe(0o640)
    }
  })

  it('moves at most INLINE_IO_BYTES on the loop thread per descriptor: a long transfer in small chunks yields to the event loop', async () => {
    writeFileSync(join(dir, 'long.txt'), Buffer.alloc(16 * INLINE_IO_BYTES, 0x63))
    const chunk = INLINE_IO_BYTES / 4
    for (const mode of ['read', 'write'] as const) {
      const handle = mode === 'read'
        ? (await openRegular(INLINE_CALLS, join(dir, 'long.txt'), 'long.txt')).handle
        : await INLINE_CALLS.open(join(dir, 'long-copy.txt'), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600)
      let turned = false
      setImmediate(() => (turned = true))
      const buffer = Buffer.alloc(chunk, 0x64)
      let chunks = 0
      for (let at = 0; at < 16 * INLINE_IO_BYTES; at += chunk, chunks++) {
        // Every chunk is small enough for the loop thread; the first four (the budget) run there.
        if (chunks === 4) expect(turned).toBe(false)
        if (mode === 'read') await handle.read(buffer, 0, chunk, at)
        else await handle.write(buffer, 0, chunk)
      }
      await handle.close()
      expect(turned).toBe(true)
    }
    expect(statSync(join(dir, 'long-copy.txt')).size).toBe(16 * INLINE_IO_BYTES)
  })

  it('is read whole in one positioned read, or left to readAll from its start once it grew', async () => {
    writeFileSync(join(dir, 'small.txt'), 'abc\n')
    const same = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt')
    expect(Buffer.from(readSmallInline(INLINE_CALLS, same)!).toString()).toBe('abc\n')
    await same.handle.close()
    const grown = await openRegular(INLINE_CALLS, join(dir, 'small.txt'), 'small.txt')
    appendFileSync(join(dir, 'small.txt'), 'def\n')
    expect(readSmallInline(INLINE_CALLS, grown)).toBeUndefined()
    expect(Buffer.from(await readAll(grown, 1 << 20, 'small.txt')).toString()).toBe('abc\ndef\n')
    await grown.handle.close()
  })
})
