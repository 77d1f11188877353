import type { FsTarget } from '@deepseek-ai/dsh-fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from './support/sandbox'

// Counted like the round-trip table: HTTP requests the emulator received during one operation.
const sandbox = useEmulatedSandbox()
let provider: Provider
let dir: string
let root: FsTarget

beforeAll(async () => {
  provider = await startProvider(sandbox.emulator.url)
  dir = await freshDir(sandbox.root)
  // Forty directories three levels deep: a walk by listDir would need one command for each.
  for (let a = 0; a < 4; a++) {
    for (let b = 0; b < 10; b++) {
      await mkdir(join(dir, `d${a}`, `e${b}`), { recursive: true })
      await writeFile(join(dir, `d${a}`, `e${b}`, 'f.ts'), b === 7 ? 'const needle = 1\n' : 'const hay = 1\n')
    }
  }
  await writeFile(join(dir, '.gitignore'), 'd3/\n')
  root = await provider.fs.resolve(dir)
})
afterAll(() => provider?.dispose())

async function count(operation: () => Promise<unknown>): Promise<Record<string, number>> {
  sandbox.emulator.resetRequests()
  await operation()
  return sandbox.emulator.stats()
}

describe('discovery in a sandbox', () => {
  it('walks a whole tree with one command, never one per directory', async () => {
    let total = 0
    expect(await count(async () => {
      total = (await provider.fs.walk(root, { limit: 1000, glob: ['**/*.ts'] })).total
    })).toEqual({ 'POST /process.Process/Start': 1 })
    expect(total).toBe(30)
  })

  it('searches a whole tree with one command, contents included', async () => {
    let paths: string[] = []
    expect(await count(async () => {
      paths = (await provider.fs.search(root, { pattern: 'needle', mode: 'files', limit: 100 })).files.map((file) => file.path)
    })).toEqual({ 'POST /process.Process/Start': 1 })
    expect(paths).toEqual(['d0/e7/f.ts', 'd1/e7/f.ts', 'd2/e7/f.ts'])
  })

  it('searches for a pattern with no literal part with one command too', async () => {
    let count_ = 0
    expect(await count(async () => {
      count_ = (await provider.fs.search(root, { pattern: '^const (needle|hay)', mode: 'count', limit: 100 })).files.length
    })).toEqual({ 'POST /process.Process/Start': 1 })
    expect(count_).toBe(30)
  })

  it('sends no command for an invalid pattern', async () => {
    expect(await count(() => provider.fs.search(root, { pattern: '(', mode: 'files', limit: 1 }).catch((error: unknown) => error))).toEqual({})
  })
})

describe('discovery output framing', () => {
  it('finds every match when names are the old section and end marks (\\x01, \\x02) or look like the new ones', async () => {
    const tree = await freshDir(sandbox.root)
    const names = ['\u0001', '\u0002', 'end', 'section', '\u0002\u0001', 'z\nnewline']
    await mkdir(join(tree, 'sub'), { recursive: true })
    for (const name of names) await writeFile(join(tree, name), 'needle here\n')
    for (let i = 0; i < 14; i++) await writeFile(join(tree, 'sub', `f${String(i).padStart(2, '0')}.txt`), 'needle too\n')
    await writeFile(join(tree, 'sub', 'bin.dat'), Buffer.from('needle\u0000\u0001'))
    const at = await provider.fs.resolve(tree)
    const found = await provider.fs.search(at, { pattern: 'needle', mode: 'files', limit: 100 })
    expect(found.files.map((file) => file.path).sort()).toEqual([...names, ...Array.from({ length: 14 }, (_, i) => `sub/f${String(i).padStart(2, '0')}.txt`)].sort())
    expect(found.skipped).toEqual({ binary: 1, tooLarge: 0, unreadable: 0 })
    expect(found.complete).toBe(true)
    const regex = await provider.fs.search(at, { pattern: 'ne+dle', mode: 'count', limit: 100 })
    expect(regex.files.length).toBe(20)
    const walked = await provider.fs.walk(at, { limit: 100 })
    expect(walked.entries.map((entry) => entry.path)).toContain('\u0002')
    expect(walked).toMatchObject({ total: 22, complete: true })
  })
})
