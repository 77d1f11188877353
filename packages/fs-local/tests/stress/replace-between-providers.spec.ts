import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { LocalDisk, STAGING_PREFIX } from '../../src'
import { beforeEachPublish } from '../hooks'
import { tempDir } from '../fixture'

// Regression for a lost update found by the process races: two providers that do not share the
// in-process lock both re-checked the version they had read, both found it current, and both
// renamed, so both reported success and one write vanished. Two LocalDisk instances in one process
// (each with a process state of its own) race for one target; the first to stage holds on a moment
// before its publication, so the other one is waiting on the staged name, the target's lock.
it('lets only one of two providers without a shared lock replace from one version, twenty times over', async () => {
  const dir = await tempDir('dsh-reliability-cas-')
  for (let round = 0; round < 20; round++) {
    const hook = () => new Promise<void>((resolve) => setTimeout(resolve, 20))
    const options = { cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 1 << 24 }
    const providers = [new LocalDisk(options), new LocalDisk(options)]
    for (const provider of providers) beforeEachPublish(provider, hook)
    const name = `shared-${round}.txt`
    await writeFile(join(dir, name), 'base\n')
    const version = (await providers[0]!.stat(await providers[0]!.resolve(name)))!.version
    const results = await Promise.allSettled(providers.map(async (disk, i) =>
      disk.writeText(await disk.resolve(name), `writer ${i}\n`, { expected: { kind: 'replaceIfVersion', version } })))
    const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []))
    expect(winners, `round ${round}`).toHaveLength(1)
    const loser = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(loser.reason.code).toBe('FS_STALE_VERSION')
    expect(await readFile(join(dir, name), 'utf8')).toBe(`writer ${winners[0]}\n`)
  }
  expect((await readdir(dir)).filter((name) => name.startsWith(STAGING_PREFIX))).toEqual([])
})
