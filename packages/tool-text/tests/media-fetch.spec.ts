import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import { Context } from 'cordis'
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MEDIA_LIMITS } from '../src/media/config'
import { fetchMedia } from '../src/media/show'

let dir: string
let local: LocalFileSystem

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-media-fetch-'))
  local = new LocalFileSystem(new Context(), { cwd: dir })
})

afterAll(() => rm(dir, { recursive: true, force: true }))

// A PDF by its signature, over a megabyte: the local disk streams it in several chunks from two
// buffers it reuses. Every kilobyte differs, so bytes from the wrong place show.
const pdf = Buffer.from(`%PDF-1.4\n${Array.from({ length: 1200 }, (_, i) => `% block ${i} `.padEnd(1023, '.')).join('\n')}`, 'latin1')

describe('fetchMedia', () => {
  it('returns exactly the file bytes of a PDF streamed in many chunks', async () => {
    await writeFile(join(dir, 'big.bin'), pdf)
    const target = await local.resolve('big.bin')
    const bytes = await fetchMedia(local, target, (await local.stat(target))!, DEFAULT_MEDIA_LIMITS)
    expect(pdf.length).toBeGreaterThan(1 << 20)
    expect(Buffer.compare(Buffer.from(bytes!), Buffer.from(pdf))).toBe(0)
  })

  it('refuses a file changed since the stat the read records, instead of showing the new bytes as the old version', async () => {
    await writeFile(join(dir, 'swapped.bin'), pdf)
    const target = await local.resolve('swapped.bin')
    const info = (await local.stat(target))!
    await appendFile(join(dir, 'swapped.bin'), '% appended by another process\n')
    await expect(fetchMedia(local, target, info, DEFAULT_MEDIA_LIMITS)).rejects.toMatchObject({ code: 'FS_STALE_VERSION' })
  })
})
