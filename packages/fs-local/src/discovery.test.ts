import { FsError, type FsSearchOptions, type FsTarget } from '@deepseek-ai/dsh-fs'
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { searchDisk } from './discovery'
import { POOLED_CALLS } from './calls'
import { Containment } from './identity'

let root: string
let outside: string
const target = (): FsTarget => ({ targetKey: root, displayPath: root }) as FsTarget

/**
 * 2,000 small files in 20 directories, every 97th holding the
 * literal, some in CRLF or upper case; plus a FIFO, a symlink out of the root to a file that holds
 * it, binary files with and without it, an ignored file, and a file larger than one read buffer
 * whose only hit is at its end.
 */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dsh-search-'))
  outside = await mkdtemp(join(tmpdir(), 'dsh-search-out-'))
  for (let d = 0; d < 20; d++) {
    const dir = join(root, `d${String(d).padStart(2, '0')}`)
    await mkdir(dir)
    await Promise.all(Array.from({ length: 100 }, (_, f) => {
      const n = d * 100 + f
      const hit = n % 97 === 3 ? (n % 2 === 0 ? 'say NEEDLE loudly\r\n' : 'a needle é\r\n') : ''
      return writeFile(join(dir, `f${String(f).padStart(3, '0')}.txt`), `line one of ${n}\n${hit}last\n`)
    }))
  }
  await writeFile(join(root, 'bin-hit.bin'), Buffer.concat([Buffer.from('needle'), Buffer.from([0, 0, 1])]))
  await writeFile(join(root, 'bin-miss.bin'), Buffer.from([0, 1, 2, 3]))
  await writeFile(join(root, 'big.txt'), `${'x'.repeat(200 * 1024)}\nneedle at the end\n`)
  await writeFile(join(root, '.gitignore'), 'ignored.txt\n')
  await writeFile(join(root, 'ignored.txt'), 'needle\n')
  await writeFile(join(outside, 'secret.txt'), 'needle outside\n')
  await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'))
  execFileSync('mkfifo', [join(root, 'pipe.txt')])
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

const search = (options: Partial<FsSearchOptions>, signal?: AbortSignal) =>
  searchDisk(new Containment(POOLED_CALLS, root, root), target(), { pattern: 'needle', mode: 'files', limit: 1000, ...options }, signal)

describe('searchDisk', () => {
  it('finds the files, lines and counts that hold the pattern, and no file behind a link, FIFO or ignore rule', async () => {
    const all = await search({ caseInsensitive: true })
    expect(all.files.map((file) => file.path)).toContain('big.txt')
    // 21 of the 2,000 small files hold the literal (n % 97 === 3), half of them in upper case.
    expect(all.files.filter((file) => file.path.startsWith('d')).length).toBe(21)
    expect(all.skipped).toEqual({ binary: 1, tooLarge: 0, unreadable: 0 })
    const paths = all.files.map((file) => file.path)
    expect(paths).not.toContain('link.txt')
    expect(paths).not.toContain('pipe.txt')
    expect(paths).not.toContain('ignored.txt')
    expect([...paths].sort()).toEqual(paths)
    const lines = await search({ mode: 'lines' })
    expect(lines.files.find((file) => file.path === 'd00/f003.txt')?.lines).toEqual([{ line: 2, text: 'a needle é', match: true }])
    expect((await search({ maxFileBytes: 100 * 1024 })).skipped.tooLarge).toBe(1)
  })

  it('stops where the window is full, and says more', async () => {
    const cut = await search({ limit: 2 })
    expect(cut.files.map((file) => file.path)).toEqual(['big.txt', 'd00/f003.txt'])
    expect(cut.more).toBe(true)
  })

  it('fails FS_ABORTED when aborted', async () => {
    // Aborted at the walk's eighth check (six directories in), not by a timer.
    const controller = new AbortController()
    let checks = 0
    const signal = new Proxy(controller.signal, {
      get(signal, key) {
        if (key === 'aborted' && ++checks === 8) controller.abort()
        const value: unknown = Reflect.get(signal, key, signal)
        return typeof value === 'function' ? value.bind(signal) : value
      },
    })
    const error = await search({}, signal).then(() => undefined, (e: unknown) => e)
    expect(FsError.is(error, 'FS_ABORTED')).toBe(true)
    expect(checks).toBeGreaterThanOrEqual(8)
  })
})
