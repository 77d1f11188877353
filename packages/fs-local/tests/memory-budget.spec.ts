import { FsError } from '@deepseek-ai/dsh-fs'
import { MemoryBudget } from '@deepseek-ai/dsh-fs/kit'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LocalDisk, LocalFileSystem } from '../src'
import { beforeEachPublish } from './hooks'
import { tempDir } from './fixture'

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('the memory budget of whole-file edits and reads', () => {
  it('queues concurrent edits past the budget, and runs them once memory is released', async () => {
    const dir = await tempDir()
    const budget = new MemoryBudget(4 * 1000)
    let resume!: () => void
    let pauses = 1
    const paused = new Promise<void>((resolve) => (resume = resolve))
    const options = LocalFileSystem.Config.parse({ cwd: dir })
    const disk = new LocalDisk({ ...options, memoryBudget: budget })
    beforeEachPublish(disk, () => (pauses-- > 0 ? paused : Promise.resolve()))
    await writeFile(join(dir, 'a.txt'), 'a'.repeat(1000))
    await writeFile(join(dir, 'b.txt'), 'b'.repeat(1000))
    const edit = (letter: string) => ({ oldString: letter, newString: letter.toUpperCase(), replaceAll: true })
    // The first edit holds the whole budget while it stands before its publication point.
    const first = disk.editText(await disk.resolve('a.txt'), edit('a'))
    while (budget.inUse === 0) await settle()
    const second = disk.editText(await disk.resolve('b.txt'), edit('b'))
    while (budget.waiting < 1) await settle()
    // Queued behind the second edit. It opened the file before queueing, so it returns the text as
    // it was then: one consistent version, never a mix.
    const read = disk.readText(await disk.resolve('b.txt'))
    while (budget.waiting < 2) await settle()
    expect(await readFile(join(dir, 'b.txt'), 'utf8')).toBe('b'.repeat(1000))
    resume()
    await Promise.all([first, second])
    expect(await read).toBe('b'.repeat(1000))
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('A'.repeat(1000))
    expect([budget.inUse, budget.waiting]).toEqual([0, 0])
  })

  it('refuses an edit that alone needs more than the budget with FS_TOO_LARGE, leaving the file as it was', async () => {
    const dir = await tempDir()
    const options = LocalFileSystem.Config.parse({ cwd: dir })
    const disk = new LocalDisk({ ...options, memoryBudget: new MemoryBudget(1000) })
    await writeFile(join(dir, 'big.txt'), 'x'.repeat(1000))
    const error = await disk.editText(await disk.resolve('big.txt'), { oldString: 'x', newString: 'y', replaceAll: true }).catch((e: unknown) => e)
    expect(FsError.is(error, 'FS_TOO_LARGE')).toBe(true)
    expect(await readFile(join(dir, 'big.txt'), 'utf8')).toBe('x'.repeat(1000))
  })
})
