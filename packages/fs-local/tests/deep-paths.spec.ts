import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { localFixture } from './fixture'

// Issue 25, item 6: a read under a 1,500-level tree held the loop thread for seconds, and a write
// 2,100 levels down for a minute and a half (realpath(3) looks every prefix up again, once per
// missing level). Lookups of long paths now go to the thread pool, and a missing ancestor costs one
// `lstat`: the loop thread turns between the lookups, and both answer.
const LEVELS = 1_500

/** Counts the turns of the event loop while `work` runs: zero would mean it held the loop thread throughout. */
async function turnsDuring<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0
  let done = false
  const spin = () => setImmediate(() => {
    turns++
    if (!done) spin()
  })
  spin()
  try {
    return { value: await work, turns }
  } finally {
    done = true
  }
}

it(`reads a file ${LEVELS} levels down and creates one 200 levels further, leaving the loop thread free between lookups`, async () => {
  const fx = await localFixture({}, true)
  // Made in steps of 100 levels: one path of 1,500 levels is within PATH_MAX (2 bytes a level).
  let made = fx.dir
  for (let level = 0; level < LEVELS; level += 100) {
    made = join(made, ...Array<string>(100).fill('d'))
    await mkdir(made, { recursive: true })
  }
  await writeFile(join(made, 'f.txt'), 'at the bottom\n')
  const deep = Array<string>(LEVELS).fill('d').join('/')
  // Resolving is one realpath: made on the loop thread, it would answer before the loop turned once.
  const found = await turnsDuring(fx.fs.resolve(`${deep}/f.txt`))
  expect(found.turns).toBeGreaterThan(0)
  expect(await fx.fs.readText(found.value)).toBe('at the bottom\n')
  const deeper = `${deep}/${Array<string>(200).fill('e').join('/')}/g.txt`
  const missing = await turnsDuring(fx.fs.resolve(deeper))
  expect(missing.turns).toBeGreaterThan(0)
  const written = await turnsDuring(fx.fs.writeText(missing.value, 'deeper\n', { expected: { kind: 'createIfAbsent' } }))
  expect(written.value.operation).toBe('create')
  expect(written.turns).toBeGreaterThan(0)
  expect(await readFile(join(made, ...Array<string>(200).fill('e'), 'g.txt'), 'utf8')).toBe('deeper\n')
  await fx.dispose()
}, 120_000)
