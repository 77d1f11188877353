import { declaredPng, minimalPdf } from '@deepseek-ai/dsh-test-kit'
import { execFileSync } from 'node:child_process'
import { symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

describe('media reads an attacker shapes', () => {
  it('shows a PDF of thousands of empty pages within the read budget, naming the pages that follow', async () => {
    s = await stack({ policy: true, config: { readMedia: true, readMaxBytes: 4096 } })
    await s.put('blank.pdf', minimalPdf(Array.from({ length: 3000 }, () => null)))
    const text = await s.ok('read', { file_path: 'blank.pdf' })
    expect(text).toMatch(/PDF, 3000 pages; the text of pages 1-\d+ follows\. To continue, read it again with pages: "\d+-\d+"\./)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096 + 512)
  })

  it('shows the pages of a PDF large enough to be streamed in several chunks from its own bytes', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    await s.put('big.pdf', minimalPdf(Array.from({ length: 1500 }, (_, i) => [`text of page ${i + 1}`])))
    expect(await s.ok('read', { file_path: 'big.pdf', pages: '1500' })).toContain('--- Page 1500 ---\ntext of page 1500')
  })

  it('refuses an image or PDF behind a symlink that leads out of the root, naming only the path asked for', async () => {
    s = await stack({ policy: true, rooted: true, config: { readMedia: true } })
    await writeFile(join(s.outside, 'secret.png'), declaredPng(4, 4, 4))
    await writeFile(join(s.outside, 'secret.pdf'), minimalPdf([['outside secret']]))
    await symlink(join(s.outside, 'secret.png'), s.path('p.png'))
    await symlink(join(s.outside, 'secret.pdf'), s.path('d.pdf'))
    await symlink('/proc/self/environ', s.path('env.png'))
    for (const file_path of ['p.png', 'd.pdf', 'env.png']) {
      const result = await s.call('read', { file_path })
      expect(result.error?.code, file_path).toBe('FS_OUTSIDE_ROOT')
      expect(result.content[0]!.text).not.toContain(s.outside)
      expect(result.images ?? []).toHaveLength(0)
    }
  })

  it('refuses a FIFO named as an image without opening it', async () => {
    s = await stack({ policy: true, config: { readMedia: true } })
    execFileSync('mkfifo', [s.path('pipe.png')])
    const result = await s.call('read', { file_path: 'pipe.png' })
    expect(result.isError).toBe(true)
    expect(result.images ?? []).toHaveLength(0)
  })
})
