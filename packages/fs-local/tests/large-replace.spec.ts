import { describe, expect, it } from 'vitest'
import iconv from 'iconv-lite'
import { localFixture } from './fixture'

// Above `diffMaxBytes` a replace learns only the old file's style, from its first bytes: the
// contract's BOM and CRLF rules must hold exactly as for small files.
describe('replacing a file above diffMaxBytes', () => {
  const bytesOf = async (fx: Awaited<ReturnType<typeof localFixture>>, name: string) => [...(await fx.external.read(name))!]
  const utf8 = (text: string) => [...new TextEncoder().encode(text)]

  it('keeps the BOM and a CRLF-throughout style, and reports no before text', async () => {
    const fx = await localFixture({ diffMaxBytes: 0 })
    await fx.external.write('a.txt', Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('one\r\ntwo\r\n')))
    const outcome = await fx.fs.writeText(await fx.fs.resolve('a.txt'), 'x\ny\n')
    expect(outcome).toMatchObject({ operation: 'update', before: null, after: 'x\r\ny\r\n' })
    expect(await bytesOf(fx, 'a.txt')).toEqual([0xef, 0xbb, 0xbf, ...utf8('x\r\ny\r\n')])
  })

  it('writes bare LF over a file whose line endings are mixed far into it', async () => {
    const fx = await localFixture({ diffMaxBytes: 0 })
    await fx.external.write('m.txt', `${'line\r\n'.repeat(30_000)}last\n`)
    await fx.fs.writeText(await fx.fs.resolve('m.txt'), 'x\ny\n')
    expect(await bytesOf(fx, 'm.txt')).toEqual(utf8('x\ny\n'))
  })

  it('keeps CRLF over a large CRLF-throughout file', async () => {
    const fx = await localFixture({ diffMaxBytes: 0 })
    await fx.external.write('c.txt', 'line\r\n'.repeat(30_000))
    await fx.fs.writeText(await fx.fs.resolve('c.txt'), 'x\ny\n')
    expect(await bytesOf(fx, 'c.txt')).toEqual(utf8('x\r\ny\r\n'))
  })

  it('keeps the encoding, BOM and CRLF of a file in a legacy encoding when a text decoding is in effect', async () => {
    const fx = await localFixture({ diffMaxBytes: 0 })
    const utf16 = (text: string) => [0xff, 0xfe, ...iconv.encode(text, 'utf-16le')]
    await fx.external.write('u.txt', Uint8Array.from(utf16('première\r\nligne\r\n')))
    await fx.fs.writeText(await fx.fs.resolve('u.txt'), 'é\nü\n', { decoding: { detect: true } })
    expect(await bytesOf(fx, 'u.txt')).toEqual(utf16('é\r\nü\r\n'))
    const sjis = iconv.encode('吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n'.repeat(4), 'shift_jis')
    await fx.external.write('j.txt', sjis)
    await fx.fs.writeText(await fx.fs.resolve('j.txt'), '猫\n', { decoding: { detect: true } })
    expect(await bytesOf(fx, 'j.txt')).toEqual([...iconv.encode('猫\n', 'shift_jis')])
  })

  it('replaces a binary file as given', async () => {
    const fx = await localFixture({ diffMaxBytes: 0 })
    await fx.external.write('b.bin', Uint8Array.of(0xef, 0xbb, 0xbf, 0x00, 0x0d, 0x0a))
    await fx.fs.writeText(await fx.fs.resolve('b.bin'), 'x\ny')
    expect(await bytesOf(fx, 'b.bin')).toEqual(utf8('x\ny'))
  })
})
