import { describe, expect, it } from 'vitest'
import { isLocalFilesystem } from '../src/calls'
import { localFixture } from './fixture'

// On a local filesystem `inspect` reads files up to 64 KiB on the loop thread, larger ones through
// the thread pool: both must answer the same text with the version `stat` reports.
describe('inspect on both sides of the inline read bound', () => {
  for (const bytes of [0, 1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 200 * 1024]) {
    it(`answers a ${bytes}-byte file with its text and the version of its stat`, async () => {
      const fx = await localFixture({}, true)
      // ASCII lines behind one three-byte character: exactly `bytes` bytes of valid UTF-8.
      const exact = bytes < 3 ? Buffer.alloc(bytes, 0x61) : Buffer.concat([Buffer.from('→'), Buffer.alloc(bytes - 3, 'line\n')])
      await fx.external.write('f.txt', exact)
      expect(fx.fs.disk.process.calls.inline).toBe(isLocalFilesystem(fx.dir))
      const seen = await fx.fs.inspect('f.txt', { textUpTo: 256 * 1024 })
      const stat = await fx.fs.stat(await fx.fs.resolve('f.txt'))
      expect(seen).toMatchObject({ text: exact.toString(), info: { version: stat!.version, size: bytes } })
    })
  }

  it('answers a file larger than textUpTo with its stat alone', async () => {
    const fx = await localFixture({}, true)
    await fx.external.write('f.txt', Buffer.alloc(5000, 0x61))
    const seen = await fx.fs.inspect('f.txt', { textUpTo: 4096 })
    expect(seen.text).toBeUndefined()
    expect(seen.info).toMatchObject({ type: 'file', size: 5000 })
  })
})
