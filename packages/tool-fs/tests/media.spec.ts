import { declaredPng, deflatedPdf, encryptedPdf, minimalPdf } from '@deepseek-ai/dsh-test-kit'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
const n = (count: number) => count.toLocaleString('en-US')
afterEach(async () => {
  await s.dispose()
})

/** A noisy image (so that it does not compress to nothing) of the given size, in `format`. */
async function picture(width: number, height: number, format: 'png' | 'jpeg' | 'gif' | 'webp'): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3)
  // A fixed pseudo-random pattern: the same bytes on every run.
  let state = 12345
  for (let i = 0; i < pixels.length; i++) pixels[i] = (state = (state * 1103515245 + 12345) >>> 0) >>> 24
  return sharp(pixels, { raw: { width, height, channels: 3 } }).toFormat(format).toBuffer()
}

describe('read of an image', () => {
  it.each([['png', 'image/png'], ['jpeg', 'image/jpeg'], ['gif', 'image/gif'], ['webp', 'image/webp']] as const)(
    'returns a %s within the limits byte for byte as an image item, with its pixel size in the text', async (format, mimeType) => {
      s = await stack({ policy: true, config: { readMedia: true } })
      const bytes = await picture(40, 30, format)
      await s.put(`p.${format}`, bytes)
      const result = await s.call('read', { file_path: `p.${format}` })
      expect(result.isError).toBe(false)
      expect(result.images).toEqual([{ type: 'image', mimeType, data: bytes.toString('base64') }])
      expect(result.content[0]!.text).toMatch(new RegExp(`p\\.${format}: \\w+ image, 40×30 pixels \\(${n(bytes.length)} bytes\\), shown below as it is\\.$`))
    },
  )

  it('downscales an image over the side limit, aspect kept, and says both sizes', async () => {
    s = await stack({ policy: true, config: { readMedia: true, readImageMaxSide: 100 } })
    await s.put('wide.png', await picture(400, 100, 'png'))
    const result = await s.call('read', { file_path: 'wide.png' })
    const returned = Buffer.from(result.images![0]!.data, 'base64')
    expect(await sharp(returned).metadata()).toMatchObject({ format: 'png', width: 100, height: 25 })
    expect(result.content[0]!.text).toContain('400×100 pixels')
    expect(result.content[0]!.text).toContain(`shown below downscaled to 100×25 pixels (${n(returned.length)} bytes) to fit the read limits of 100 pixels a side`)
  })

  it('downscales an image over the byte limit until it fits, the same bytes on every read', async () => {
    s = await stack({ policy: true, config: { readMedia: true, readImageMaxBytes: 20_000 } })
    const original = await picture(300, 200, 'jpeg')
    expect(original.length).toBeGreaterThan(20_000)
    await s.put('photo.jpg', original)
    const first = await s.call('read', { file_path: 'photo.jpg' })
    const again = await s.call('read', { file_path: 'photo.jpg' })
    const returned = Buffer.from(first.images![0]!.data, 'base64')
    expect(returned.length).toBeLessThanOrEqual(20_000)
    expect(again.images![0]!.data).toBe(first.images![0]!.data)
    const meta = await sharp(returned).metadata()
    expect(meta.format).toBe('jpeg')
    // Aspect kept (3:2) to the pixel.
    expect(Math.abs(meta.width! / meta.height! - 1.5)).toBeLessThan(0.02)
    expect(first.content[0]!.text).toContain(`downscaled to ${meta.width}×${meta.height} pixels (${n(returned.length)} bytes)`)
  })

  it('refuses a decompression bomb from its header, before decoding it', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    const bomb = declaredPng(100_000, 100_000)
    expect(bomb.length).toBeLessThan(1000)
    await s.put('bomb.png', bomb)
    const before = process.memoryUsage().rss
    const result = await s.call('read', { file_path: 'bomb.png' })
    expect(result.error?.code).toBe('MEDIA_TOO_MANY_PIXELS')
    expect(result.content[0]!.text).toContain(`${s.path('bomb.png')} is a PNG image declaring 100000×100000 pixels, more than the 100,000,000 pixels`)
    // Ten billion pixels decoded would be gigabytes; nothing near that was allocated.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024)
  })

  it('refuses a truncated or malformed image with a typed error naming the file', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    const whole = await picture(64, 64, 'png')
    await s.put('cut.png', whole.subarray(0, whole.length / 2))
    await s.put('junk.jpg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(100, 7)]))
    for (const name of ['cut.png', 'junk.jpg']) {
      const result = await s.call('read', { file_path: name })
      expect(result.error?.code).toBe('MEDIA_INVALID')
      expect(result.content[0]!.text).toContain(`${s.path(name)} starts as a`)
      expect(result.content[0]!.text).toContain('truncated or malformed')
    }
  })

  it('refuses an image file over readMediaMaxBytes by its size', async () => {
    s = await stack({ policy: true, config: { readMedia: true, readMediaMaxBytes: 1000 } })
    await s.put('big.png', await picture(100, 100, 'png'))
    const result = await s.call('read', { file_path: 'big.png' })
    expect(result.error?.code).toBe('FS_TOO_LARGE')
    expect(result.content[0]!.text).toContain('is a PNG image of')
  })

  it('shows an image whose name does not say so, by its bytes', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    const bytes = await picture(8, 8, 'png')
    await s.put('snapshot', bytes)
    const result = await s.call('read', { file_path: 'snapshot' })
    expect(result.images?.[0]?.data).toBe(bytes.toString('base64'))
  })

  it('still refuses other binaries, and reads text that has an image name as text', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    await s.put('blob.bin', Buffer.from([1, 2, 0, 3]))
    await s.put('fake.png', 'just text\n')
    expect((await s.call('read', { file_path: 'blob.bin' })).error?.code).toBe('FS_NOT_TEXT')
    expect(await s.text('read', { file_path: 'fake.png' })).toBe('     1\tjust text\n\n[End of file: 1 lines.]'.replace('1 lines', '1 line'))
  })
})

describe('read of a PDF', () => {
  it('answers ABORTED when the call is aborted while pdf.js parses, and a read after it works', async () => {
    s = await stack({ policy: true, config: { readMedia: true, readPdfMaxDecodedBytes: 1024 * 1024 * 1024 } })
    // 256 MiB of spaces in one deflated page: seconds of parsing, ended by the abort.
    await s.put('bomb.pdf', deflatedPdf(Buffer.alloc(256 * 1024 * 1024, 0x20)))
    await s.put('hello.pdf', minimalPdf([['Hello page one']]))
    const controller = new AbortController()
    const reading = s.ctx.tools.execute({ name: 'read', arguments: { file_path: 'bomb.pdf' }, signal: controller.signal, agent: { session: s.session } })
    setTimeout(() => controller.abort(new Error('the client cancelled')), 200)
    const result = await reading
    expect(result.error?.code).toBe('ABORTED')
    expect(result.content[0]!.text).not.toContain('the client cancelled')
    expect(await s.ok('read', { file_path: 'hello.pdf' })).toContain('Hello page one')
  }, 60_000)

  it('shows the text of each page, marked, with the page count, and says when a page has no text layer', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    await s.put('doc.pdf', minimalPdf([['Hello page one', 'second line'], null, ['Third page']]))
    expect(await s.ok('read', { file_path: 'doc.pdf' })).toBe(
      `${s.path('doc.pdf')}: PDF, 3 pages; the text of pages 1-3 follows.\n\n`
        + '--- Page 1 ---\nHello page one\nsecond line\n\n'
        + '--- Page 2 ---\n(This page has no text layer: it is an image or drawing only, so it has no text to show.)\n\n'
        + '--- Page 3 ---\nThird page',
    )
  })

  it('shows the pages asked for, and the first pages within the budget by default, naming the range that follows', async () => {
    s = await stack({ policy: true, config: { readMedia: true, readMaxBytes: 260 } })
    const pages = Array.from({ length: 8 }, (_, i) => [`Page number ${i + 1} `.padEnd(60, 'x')])
    await s.put('long.pdf', minimalPdf(pages))
    const first = await s.ok('read', { file_path: 'long.pdf' })
    expect(first).toMatch(/^.*long\.pdf: PDF, 8 pages; the text of pages 1-3 follows\. To continue, read it again with pages: "4-6"\./)
    expect(first).not.toContain('--- Page 4 ---')
    const asked = await s.ok('read', { file_path: 'long.pdf', pages: '7-8' })
    expect(asked).toContain('the text of pages 7-8 follows.\n\n--- Page 7 ---\nPage number 7')
    const bad = await s.call('read', { file_path: 'long.pdf', pages: '9' })
    expect(bad.error?.code).toBe('INVALID_ARGUMENTS')
    expect(bad.content[0]!.text).toContain('which has 8 pages; pass pages as "N" or "N-M" with 1 <= N <= M <= 8')
  })

  it('reads a PDF encrypted without a user password normally, and refuses one that needs a password', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    const dir = await mkdtemp(join(tmpdir(), 'dsh-pdf-'))
    const plain = minimalPdf([['Secret plans']])
    await s.put('open.pdf', encryptedPdf(plain, '', dir))
    await s.put('locked.pdf', encryptedPdf(plain, 'hunter2', dir))
    expect(await s.ok('read', { file_path: 'open.pdf' })).toContain('--- Page 1 ---\nSecret plans')
    const locked = await s.call('read', { file_path: 'locked.pdf' })
    expect(locked.error?.code).toBe('PDF_PASSWORD_REQUIRED')
    expect(locked.content[0]!.text).toContain(`${s.path('locked.pdf')} is a PDF protected by a password, which is needed to open it`)
  })

  it('refuses a truncated or malformed PDF with a typed error naming the file', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    const pdf = minimalPdf([['Hello']])
    await s.put('cut.pdf', pdf.subarray(0, 200))
    const result = await s.call('read', { file_path: 'cut.pdf' })
    expect(result.error?.code).toBe('MEDIA_INVALID')
    expect(result.content[0]!.text).toContain(`${s.path('cut.pdf')} starts as a PDF file but cannot be decoded`)
  })
})

describe('without readMedia (the library default)', () => {
  it('refuses an image as binary and shows a PDF as its bytes\' text, as before, and never sends a write over an image to read first', async () => {
    s = await stack({ policy: true })
    await s.put('logo.png', await picture(8, 8, 'png'))
    await s.put('doc.pdf', minimalPdf([['text']]))
    const image = await s.call('read', { file_path: 'logo.png' })
    expect(image.error?.code).toBe('FS_NOT_TEXT')
    expect(image.images).toBeUndefined()
    expect(image.content[0]!.text).toContain('these tools show and change UTF-8 text only')
    // This PDF is plain ASCII: without readMedia it is the text file it also is.
    expect(await s.ok('read', { file_path: 'doc.pdf' })).toContain('     1\t%PDF-1.4\n')
    const write = await s.call('write', { file_path: 'logo.png', content: 'x' })
    expect(write.error?.code).toBe('FS_NOT_TEXT')
    expect(write.content[0]!.text).toContain('is a binary file (NUL byte at offset')
  })
})

describe('media reads are observations', () => {
  it('lets a write replace an image only after a read, and only while it is the version read', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    await s.put('logo.png', await picture(16, 16, 'png'))
    const unread = await s.call('write', { file_path: 'logo.png', content: 'x' })
    expect(unread.error?.code).toBe('FS_NOT_OBSERVED')
    expect(unread.content[0]!.text).toContain('read the file, then retry')
    await s.ok('read', { file_path: 'logo.png' })
    await s.put('logo.png', await picture(17, 16, 'png'))
    expect((await s.call('write', { file_path: 'logo.png', content: 'x' })).error?.code).toBe('FS_STALE_VERSION')
    await s.ok('read', { file_path: 'logo.png' })
    await s.ok('write', { file_path: 'logo.png', content: 'replaced\n' })
    expect((await s.bytes('logo.png'))!.toString()).toBe('replaced\n')
  })

  it('refuses an edit of an image as not text, naming what it is', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    await s.put('logo.png', await picture(16, 16, 'png'))
    await s.ok('read', { file_path: 'logo.png' })
    const result = await s.call('edit', { file_path: 'logo.png', old_string: 'a', new_string: 'b' })
    expect(result.error?.code).toBe('FS_NOT_TEXT')
  })
})
