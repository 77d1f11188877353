import { spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recordSection, sized, STRESS } from '../../../scripts/reliability/record'
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

const ROUNDS = sized(150, 3_000)
const TOOLS = ['grep', 'glob', 'list'] as const

async function fill(dir: string, word: string): Promise<void> {
  for (const sub of ['a', 'a/b', 'b']) {
    await mkdir(join(dir, sub), { recursive: true })
    for (let i = 0; i < 30; i++) await writeFile(join(dir, sub, `${word}-${i}.txt`), `needle ${word} ${sub} ${i}\n`)
  }
}

describe('discovery under a directory swapped for a symlink', () => {
  it(`never shows an outside name or line in ${ROUNDS} rounds of a grep, a glob and a list`, { timeout: STRESS ? 600_000 : 120_000 }, async () => {
    const fixture = await localFixture({}, true)
    const outside = await tempDir('dsh-discovery-outside-')
    await fill(fixture.dir, 'inside')
    await fill(outside, 'OUTSIDE')
    const root = await fixture.fs.resolve('.')
    // More swaps than any run needs: the swapper is stopped once the rounds are done.
    const swapper = spawn(process.execPath, ['-e', SWAPPER, fixture.dir, outside, '100000000'], { stdio: 'ignore' })
    const ended = new Promise((resolve) => swapper.once('exit', resolve))
    const tally = Object.fromEntries(TOOLS.map((tool) => [tool, { calls: 0, shown: 0, outside: 0 }]))
    // An answer whose paths differ from the tree at rest (a directory missing, or seen under its `.held` name) met a swap.
    const files = ['a', 'a/b', 'b'].flatMap((sub) => Array.from({ length: 30 }, (_, i) => `${sub}/inside-${i}.txt`))
    const atRest = { grep: files, glob: files, list: [...files, 'a', 'a/b', 'b'] }
    const metSwap = Object.fromEntries(TOOLS.map((tool) => [tool, 0]))
    const compare = (tool: typeof TOOLS[number], paths: string[]) => {
      const expected = new Set(atRest[tool])
      if (paths.length !== expected.size || paths.some((path) => !expected.has(path))) metSwap[tool]!++
    }
    const seen: string[] = []
    let insideLines = 0
    const show = (tool: typeof TOOLS[number], text: string) => {
      seen.push(text)
      tally[tool]!.shown++
      if (text.includes('OUTSIDE')) tally[tool]!.outside++
    }
    try {
      for (let round = 0; round < ROUNDS && swapper.exitCode === null; round++) {
        const [lines, names, tree] = await Promise.all([
          fixture.fs.search(root, { pattern: 'needle', mode: 'lines', limit: 10_000, includeIgnored: true }),
          fixture.fs.walk(root, { glob: ['**/*.txt'], limit: 10_000 }),
          fixture.fs.walk(root, { limit: 10_000, maxDepth: 5, sizes: true }),
        ])
        for (const tool of TOOLS) tally[tool]!.calls++
        compare('grep', lines.files.map((file) => file.path))
        compare('glob', names.entries.map((entry) => entry.path))
        compare('list', tree.entries.map((entry) => entry.path))
        for (const file of lines.files) {
          show('grep', file.path)
          for (const line of file.lines ?? []) {
            show('grep', line.text)
            if (line.text.includes('inside')) insideLines++
          }
        }
        for (const entry of names.entries) show('glob', entry.path)
        for (const entry of tree.entries) show('list', entry.path)
      }
    } finally {
      swapper.kill()
      await ended
    }
    const calls = TOOLS.reduce((sum, tool) => sum + tally[tool]!.calls, 0)
    console.info(`discovery swap race: ${JSON.stringify(tally)}, met a swap: ${TOOLS.map((tool) => `${tool} ${metSwap[tool]}`).join(', ')}`)
    // The walks did run through the swapped directories' real contents meanwhile.
    expect(calls).toBe(ROUNDS * TOOLS.length)
    expect(insideLines).toBeGreaterThan(0)
    expect(seen.filter((text) => text.includes('OUTSIDE'))).toEqual([])
    await fixture.dispose()
    await recordSection({
      id: '6-containment-swap-discovery',
      title: 'Containment: discovery while directories are swapped for symlinks (provider level)',
      method: `Another process swaps \`a\` and \`a/b\` inside the root for symlinks to same-shaped directories outside, `
        + 'holding each state about 1 ms, while a LocalFileSystem with `root` runs a grep (lines mode), a glob (`**/*.txt`) and a '
        + `list (depth 5) at once, ${ROUNDS} times. Every path and line of every answer is checked for the outside marker.`,
      facts: [
        ['calls during the swapping (grep, glob, list)', calls],
        ['outside names or lines shown', TOOLS.reduce((sum, tool) => sum + tally[tool]!.outside, 0)],
        ['inside lines grep showed', insideLines],
        ...TOOLS.flatMap((tool): [string, number][] => [
          [`${tool}: calls`, tally[tool]!.calls],
          [`${tool}: names and lines shown`, tally[tool]!.shown],
          [`${tool}: outside names or lines`, tally[tool]!.outside],
          [`${tool}: answers that met a swapped directory (paths differ from the tree at rest)`, metSwap[tool]],
        ]),
      ],
    })
  })
})
