import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { localFixture } from './fixture'

// Texts longer than one encoding slice (2^20 UTF-16 units) are encoded slice by slice as they are
// written: the bytes on disk must be exactly those of encoding the whole text at once.
describe('writing a text longer than one encoding slice', () => {
  const SLICE = 1024 * 1024
  /** ASCII up to `at`, then an astral character (a surrogate pair) straddling the slice boundary. */
  const straddling = (at: number) => `${'a\n'.repeat(at / 2).slice(0, at - 1)}😀${'é→\n'.repeat(SLICE / 2)}\ud800`

  it('keeps a surrogate pair that straddles the slice boundary whole, on create and on replace', async () => {
    const fx = await localFixture()
    const text = straddling(SLICE)
    expect(text.charCodeAt(SLICE - 1)).toBe(0xd83d)
    await fx.fs.writeText(await fx.fs.resolve('long.txt'), text, { expected: { kind: 'createIfAbsent' } })
    expect((await readFile(fx.path('long.txt'))).equals(Buffer.from(text))).toBe(true)
    const other = `x${text}`
    const { version } = (await fx.fs.stat(await fx.fs.resolve('long.txt')))!
    await fx.fs.writeText(await fx.fs.resolve('long.txt'), other, { expected: { kind: 'replaceIfVersion', version } })
    expect((await readFile(fx.path('long.txt'))).equals(Buffer.from(other))).toBe(true)
  })

  it('writes the kept BOM once, in front of a long replacement', async () => {
    const fx = await localFixture({ diffMaxBytes: 0 })
    await fx.external.write('bom.txt', Uint8Array.of(0xef, 0xbb, 0xbf, 0x6f, 0x6c, 0x64, 0x0a))
    const text = straddling(SLICE + 2)
    await fx.fs.writeText(await fx.fs.resolve('bom.txt'), text)
    expect((await readFile(fx.path('bom.txt'))).equals(Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from(text)]))).toBe(true)
  })

  // Texts past a few KiB are encoded into pooled buffers reused from write to write: a buffer still
  // in use by one write must never receive another's bytes.
  it('gives every write its own bytes while encode buffers are reused, concurrently and in turn', async () => {
    const fx = await localFixture({ diffMaxBytes: 0 })
    await fx.external.write('bom.txt', Uint8Array.of(0xef, 0xbb, 0xbf, 0x6f, 0x0a))
    const text = (n: number) => `${n}:${`line ${n} → é 😀\n`.repeat(6000 + n * 97)}`
    await Promise.all(Array.from({ length: 9 }, async (_, n) => {
      await fx.fs.writeText(await fx.fs.resolve(`f${n}.txt`), text(n), { expected: { kind: 'createIfAbsent' } })
    }))
    for (let n = 0; n < 9; n++) expect((await readFile(fx.path(`f${n}.txt`))).equals(Buffer.from(text(n)))).toBe(true)
    for (const n of [3, 1, 2]) {
      await fx.fs.writeText(await fx.fs.resolve('bom.txt'), text(n))
      expect((await readFile(fx.path('bom.txt'))).equals(Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from(text(n))]))).toBe(true)
    }
  })
})
