import { spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { localFixture, tempDir } from './fixture'

/*
 * Issue 25, item 1: a directory of the tree swapped for a symlink to outside while grep, glob and
 * list walk it. Another process swaps as fast as it can, for real concurrency; every answer must
 * hold only names and lines of the root. Before the walk was anchored, a run like this printed
 * outside lines in a fifth to a quarter of the searches.
 */

const SWAPPER = `
const { renameSync, symlinkSync, unlinkSync } = require('node:fs')
const [dir, outside, rounds] = process.argv.slice(1)
const nap = new Int32Array(new SharedArrayBuffer(4))
for (let i = 0; i < Number(rounds); i++) {
  for (const name of ['a', 'a/b']) {
    const path = dir + '/' + name
    try {
      renameSync(path, path + '.held')
      symlinkSync(outside + '/' + name, path)
      // About half the time swapped: walks of a millisecond or two meet both states.
      Atomics.wait(nap, 0, 0, 1)
      unlinkSync(path)
      renameSync(path + '.held', path)
      Atomics.wait(nap, 0, 0, 1)
    } catch {}
  }
}
`

async function fill(dir: string, word: string): Promise<void> {
  for (const sub of ['a', 'a/b', 'b']) {
    await mkdir(join(dir, sub), { recursive: true })
    for (let i = 0; i < 30; i++) await writeFile(join(dir, sub, `${word}-${i}.txt`), `needle ${word} ${sub} ${i}\n`)
  }
}

describe('discovery under a directory swapped for a symlink', () => {
  it('never shows an outside name or line in hundreds of greps, globs and lists', { timeout: 120_000 }, async () => {
    const fixture = await localFixture({}, true)
    const outside = await tempDir('dsh-discovery-outside-')
    await fill(fixture.dir, 'inside')
    await fill(outside, 'OUTSIDE')
    const root = await fixture.fs.resolve('.')
    const swapper = spawn(process.execPath, ['-e', SWAPPER, fixture.dir, outside, '200000'], { stdio: 'ignore' })
    const ended = new Promise((resolve) => swapper.once('exit', resolve))
    const seen: string[] = []
    let insideLines = 0
    let calls = 0
    try {
      for (let round = 0; round < 150 && swapper.exitCode === null; round++) {
        const [lines, names, tree] = await Promise.all([
          fixture.fs.search(root, { pattern: 'needle', mode: 'lines', limit: 10_000, includeIgnored: true }),
          fixture.fs.walk(root, { glob: ['**/*.txt'], limit: 10_000 }),
          fixture.fs.walk(root, { limit: 10_000, maxDepth: 5, sizes: true }),
        ])
        calls += 3
        for (const file of lines.files) {
          seen.push(file.path)
          for (const line of file.lines ?? []) {
            seen.push(line.text)
            if (line.text.includes('inside')) insideLines++
          }
        }
        for (const entry of [...names.entries, ...tree.entries]) seen.push(entry.path)
      }
    } finally {
      swapper.kill()
      await ended
    }
    // The walks did run through the swapped directories' real contents meanwhile.
    expect(calls).toBeGreaterThanOrEqual(30)
    expect(insideLines).toBeGreaterThan(0)
    expect(seen.filter((text) => text.includes('OUTSIDE'))).toEqual([])
    await fixture.dispose()
  })
})
