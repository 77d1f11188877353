import { type ChildProcess, spawn } from 'node:child_process'
import { watch } from 'node:fs'
import { lstat, mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
import { LocalDisk } from '../../src'
import { deadStaging, tempDir } from '../fixture'

const OPERATIONS = sized(300, 3_000)
const SECRET = 'outside secret\n'

// A separate process flips `swap` between a real directory and a symlink to the outside directory
// as fast as it can, so every step of a provider call (resolve, probe, staging, publication) can
// find either one. Python's os calls keep the flip rate high without spawning a process per step.
const FLIPPER = `
import os, sys
root, outside = sys.argv[1], sys.argv[2]
swap, moved = os.path.join(root, 'swap'), os.path.join(root, 'swap.moved')
flips = 0
while True:
    try:
        os.rename(swap, moved); os.symlink(outside, swap); flips += 1
        os.unlink(swap); os.rename(moved, swap)
    except OSError:
        pass
`

let flipper: ChildProcess | undefined
afterAll(() => void flipper?.kill('SIGKILL'))

it(`writes and reads nothing outside the root while a directory is swapped for a link ${OPERATIONS} times over`, async () => {
  const base = await tempDir('dsh-reliability-swap-')
  const dir = join(base, 'root')
  const outside = join(base, 'outside')
  await mkdir(join(dir, 'swap'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(dir, 'swap', 'inside.txt'), 'inside\n')
  await writeFile(join(outside, 'inside.txt'), SECRET)
  await utimes(join(outside, 'inside.txt'), 1_000, new Date())
  const atime = (await stat(join(outside, 'inside.txt'))).atimeMs
  const events: string[] = []
  const watcher = watch(outside, (type, name) => events.push(`${type} ${String(name)}`))

  const disk = new LocalDisk({ cwd: dir, root: dir, diffMaxBytes: 1 << 20, maxTextBytes: 1 << 24 })
  flipper = spawn('python3', ['-c', FLIPPER, dir, outside], { stdio: 'ignore' })
  const codes = new Map<string, number>()
  const tally = (code: string) => codes.set(code, (codes.get(code) ?? 0) + 1)
  try {
    for (let i = 0; i < OPERATIONS; i++) {
      const kind = i % 3
      try {
        const target = await disk.resolve(kind === 0 ? 'swap/inside.txt' : `swap/new-${i}/file.txt`)
        if (kind === 0) {
          const text = await disk.readText(target)
          expect(text).toBe('inside\n')
        } else if (kind === 1) {
          await disk.writeText(target, `written ${i}\n`, { expected: { kind: 'createIfAbsent' } })
        } else {
          await disk.writeText(target, `written ${i}\n`)
        }
        tally(kind === 0 ? 'read ok' : 'write ok')
      } catch (error) {
        const code = (error as { code?: string }).code
        expect(code, String(error)).toMatch(/^FS_/)
        tally(`${kind === 0 ? 'read' : 'write'} ${code}`)
      }
    }
  } finally {
    flipper.kill('SIGKILL')
    await new Promise((resolve) => setTimeout(resolve, 50))
    watcher.close()
  }
  expect(events, 'nothing appeared outside, even briefly').toEqual([])
  expect(await readdir(outside)).toEqual(['inside.txt'])
  expect((await stat(join(outside, 'inside.txt'))).atimeMs, 'the outside file was never read').toBe(atime)
  expect(await readFile(join(outside, 'inside.txt'), 'utf8')).toBe(SECRET)
  const outcome = [...codes.entries()].sort(([a], [b]) => a.localeCompare(b))
  console.info(`swap race: ${JSON.stringify(outcome)}`)
  await recordSection({
    id: '6-containment-swap',
    title: 'Containment: a directory swapped for a symlink during calls (provider level)',
    method: 'A Python process flips a directory inside the root between itself and a symlink to a directory outside, '
      + 'in a tight loop, while a LocalDisk with `root` reads, creates and overwrites files below it. Outside: no inotify '
      + 'event, no new entry, the secret\'s bytes and access time unchanged.',
    facts: [['operations during the flipping', OPERATIONS], ...outcome.map(([what, n]): [string, number] => [`outcome: ${what}`, n]), ['entries created outside, even briefly', 0]],
  })
}, STRESS ? 600_000 : 120_000)

const LISTINGS = sized(300, 1_500)

it(`lists nothing of an outside directory, and sweeps nothing there, while a directory is swapped for a link ${LISTINGS} times over`, async () => {
  const base = await tempDir('dsh-reliability-swap-list-')
  const dir = join(base, 'root')
  const outside = join(base, 'outside')
  await mkdir(join(dir, 'swap'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(dir, 'swap', 'inside.txt'), 'inside\n')
  await writeFile(join(outside, 'outside-only.txt'), SECRET)
  // Residue of a writer that is certainly gone (nobody holds its lock): a sweep of this directory would remove it.
  const residue = await deadStaging(outside)

  const disk = new LocalDisk({ cwd: dir, root: dir, diffMaxBytes: 1 << 20, maxTextBytes: 1 << 24 })
  flipper = spawn('python3', ['-c', FLIPPER, dir, outside], { stdio: 'ignore' })
  const codes = new Map<string, number>()
  const tally = (code: string) => codes.set(code, (codes.get(code) ?? 0) + 1)
  try {
    // The flipping has begun once the directory has been seen as a link (bounded wait).
    for (let i = 0; i < 2_000 && !(await lstat(join(dir, 'swap')).then((s) => s.isSymbolicLink(), () => false)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    for (let i = 0; i < LISTINGS; i++) {
      let names: string[] | undefined
      try {
        names = (await disk.listDir(await disk.resolve('swap'))).map((entry) => entry.name)
      } catch (error) {
        const code = (error as { code?: string }).code
        expect(code, String(error)).toMatch(/^FS_/)
        tally(`list ${code}`)
      }
      if (names !== undefined) {
        expect(names, 'only the inside directory is ever listed').toEqual(['inside.txt'])
        tally('list ok')
      }
    }
  } finally {
    flipper.kill('SIGKILL')
  }
  expect((await readdir(outside)).sort(), 'the outside residue was never swept').toEqual([residue, 'outside-only.txt'].sort())
  console.info(`listing swap race: ${JSON.stringify([...codes.entries()].sort())}`)
}, STRESS ? 600_000 : 120_000)
