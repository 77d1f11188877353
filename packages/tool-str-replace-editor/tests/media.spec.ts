import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { declaredPng, minimalPdf, stack } from '@deepseek-ai/dsh-test-kit'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { editorFixture, type EditorFixture } from './fixture'

let f: EditorFixture
let observed: [string, FsObservation][]

beforeEach(async () => {
  f = await editorFixture({ config: { readMedia: true } })
  observed = []
  f.ctx.on('fs/observed', (target, observation) => void observed.push([target.displayPath, observation]))
})
afterEach(() => f.dispose())

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#336699' } }).png().toBuffer()

describe('view of an image or PDF', () => {
  it('shows an image as read does, and records it observed whole at its version', async () => {
    const bytes = await png(30, 20)
    await f.put('shot.png', bytes)
    const result = await f.call({ command: 'view', path: 'shot.png' })
    expect(result.isError).toBe(false)
    expect(result.images).toEqual([{ type: 'image', mimeType: 'image/png', data: bytes.toString('base64') }])
    expect(result.content[0]!.text).toBe(`${f.at('shot.png')}: PNG image, 30×20 pixels (${bytes.length} bytes), shown below as it is.`)
    const version = (await f.fs.stat(await f.fs.resolve(f.at('shot.png'))))!.version
    expect(observed).toEqual([[f.at('shot.png'), { kind: 'present', version, seen: { ranges: [], total: 0 } }]])
  })

  it('downscales with its own limits, and shows an image whose name does not say so', async () => {
    await f.dispose()
    f = await editorFixture({ config: { readMedia: true, readImageMaxSide: 10 } })
    await f.put('snapshot', await png(40, 20))
    const result = await f.call({ command: 'view', path: 'snapshot' })
    expect(await sharp(Buffer.from(result.images![0]!.data, 'base64')).metadata()).toMatchObject({ width: 10, height: 5 })
    expect(result.content[0]!.text).toContain('downscaled to 10×5 pixels')
  })

  it('shows the pages of a PDF that view_range names', async () => {
    await f.put('doc.pdf', minimalPdf([['one'], ['two'], ['three']]))
    expect(await f.ok({ command: 'view', path: 'doc.pdf', view_range: [2, 3] })).toBe(
      `${f.at('doc.pdf')}: PDF, 3 pages; the text of pages 2-3 follows.\n\n--- Page 2 ---\ntwo\n\n--- Page 3 ---\nthree`,
    )
    expect(await f.ok({ command: 'view', path: 'doc.pdf', view_range: [3, -1] })).toContain('the text of page 3 follows.')
  })

  it('names the next pages and a bad range in view_range, and the call it names works as written', async () => {
    await f.dispose()
    f = await editorFixture({ config: { readMedia: true, viewMaxBytes: 260 } })
    await f.put('long.pdf', minimalPdf(Array.from({ length: 8 }, (_, i) => [`Page number ${i + 1} `.padEnd(60, 'x')])))
    const first = await f.ok({ command: 'view', path: 'long.pdf' })
    expect(first).toMatch(/PDF, 8 pages; the text of pages 1-3 follows\. To continue, view it again with view_range: \[4, 6\]\./)
    expect(first).not.toContain('pages: "')
    // The literal-minded reader: the range the text names, passed as written.
    const named = JSON.parse(/view_range: (\[\d+, \d+\])/.exec(first)![1]!) as [number, number]
    expect(await f.ok({ command: 'view', path: 'long.pdf', view_range: named })).toContain('the text of pages 4-6 follows.')
    const bad = await f.call({ command: 'view', path: 'long.pdf', view_range: [9, -1] })
    expect(bad.error?.code).toBe('INVALID_ARGUMENTS')
    expect(bad.content[0]!.text).toContain('view_range [9, -1] is not a page range of')
    expect(bad.content[0]!.text).toContain('which has 8 pages; pass view_range as [N, M] with 1 <= N <= M <= 8, or [N, -1] for page N to the end')
    expect(bad.content[0]!.text).not.toContain('pages "')
  })

  it('refuses a decompression bomb and a malformed image with typed errors naming the file', async () => {
    await f.put('bomb.png', declaredPng(70_000, 70_000))
    await f.put('cut.gif', Buffer.from('GIF89a\u0010\u0000'))
    expect((await f.call({ command: 'view', path: 'bomb.png' })).error?.code).toBe('MEDIA_TOO_MANY_PIXELS')
    const cut = await f.call({ command: 'view', path: 'cut.gif' })
    expect(cut.error?.code).toBe('MEDIA_INVALID')
    expect(cut.content[0]!.text).toContain(f.at('cut.gif'))
    expect(observed).toEqual([])
  })

  it('counts as the read a write needs, across the tool families', async () => {
    await using s = await stack({ tools: ['str-replace-editor', 'tool-fs'], policy: true, toolFs: { readMedia: true }, editor: { readMedia: true } })
    await s.put('logo.png', await png(8, 8))
    expect((await s.call('write', { file_path: 'logo.png', content: 'x' })).error?.code).toBe('FS_NOT_OBSERVED')
    expect((await s.call('str_replace_editor', { command: 'view', path: 'logo.png' })).isError).toBe(false)
    await s.ok('write', { file_path: 'logo.png', content: 'now text\n' })
    expect((await s.bytes('logo.png'))!.toString()).toBe('now text\n')
  })
})
