import { type ChildProcess, spawn } from 'node:child_process'
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { STAGING_PREFIX } from '../src'
import { selfIdentity } from '../src/liveness'
import { bundleEntry } from '../../../scripts/reliability/bundle'
import { localFixture, tempDir } from './fixture'

let writer: string
let reclaimer: string

beforeAll(async () => {
  const out = await tempDir('dsh-fs-local-child-')
  await chmod(out, 0o755)
  writer = await bundleEntry(join(import.meta.dirname, 'children', 'writer.ts'), out)
  reclaimer = await bundleEntry(join(import.meta.dirname, 'children', 'reclaimer.ts'), out)
})

function start(args: string[], env: NodeJS.ProcessEnv = process.env, script = writer): ChildProcess {
  return spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'], env })
}

const staged = (names: string[]) => names.filter((name) => name.startsWith(STAGING_PREFIX))

function output(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk))
    child.once('error', reject)
    child.once('close', () => resolve(text))
  })
}

describe('separate processes', () => {
  it('lets exactly one of twelve processes racing a guarded create win, and the file holds its bytes', async () => {
    const dir = await tempDir()
    const racers = Array.from({ length: 12 }, (_, i) => start(['create', dir, 'race/target.txt', `racer ${i} `.repeat(2000)]))
    const results = racers.map(output)
    // Every racer has resolved and is waiting on stdin; release them together.
    await new Promise((resolve) => setTimeout(resolve, 400))
    for (const racer of racers) racer.stdin!.end('go')
    const outcomes = (await Promise.all(results)).map((text) => JSON.parse(text) as { ok: boolean; code?: string })
    const winners = outcomes.flatMap((outcome, i) => (outcome.ok ? [i] : []))
    expect(winners).toHaveLength(1)
    expect(outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.code)).toEqual(Array(11).fill('FS_NOT_OBSERVED'))
    expect(await readFile(join(dir, 'race/target.txt'), 'utf8')).toBe(`racer ${winners[0]} `.repeat(2000))
    // No racer left staging behind.
    expect((await readdir(join(dir, 'race'))).filter((name) => name.startsWith(STAGING_PREFIX))).toEqual([])
  })

  it('leaves the old or the new bytes, never a mix, when a writer is SIGKILLed mid-write, and reclaims its staging', async () => {
    const fixture = await localFixture()
    const size = 4 * 1024 * 1024
    await writeFile(join(fixture.dir, 'big.txt'), 'A'.repeat(size))
    let residue = 0
    for (let round = 0; round < 4; round++) {
      const child = start(['loop', fixture.dir, 'big.txt', String(size), '0'])
      await new Promise((resolve) => child.stdout!.once('data', resolve))
      // Kill the writer the moment its staging directory shows up: mid-write by construction.
      const deadline = Date.now() + 10_000
      while (!(await readdir(fixture.dir)).some((name) => name.startsWith(STAGING_PREFIX)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, round))
      }
      const closed = new Promise((resolve) => child.once('close', resolve))
      child.kill('SIGKILL')
      await closed
      const text = await readFile(join(fixture.dir, 'big.txt'), 'utf8')
      expect(text.length).toBe(size)
      expect(text === 'A'.repeat(size) || text === 'B'.repeat(size)).toBe(true)
      residue += (await readdir(fixture.dir)).filter((name) => name.startsWith(STAGING_PREFIX)).length
    }
    // The kills landed while staging existed, so there really was residue to reclaim.
    expect(residue).toBeGreaterThan(0)
    // The next mutation in that directory (or a listing) reclaims what the dead writers left.
    await fixture.fs.writeText(await fixture.fs.resolve('big.txt'), 'done')
    expect((await readdir(fixture.dir)).filter((name) => name.startsWith(STAGING_PREFIX))).toEqual([])
    await fixture.dispose()
  })

  it('reclaims a dead writer\'s staging but never touches a live writer\'s', async () => {
    const fixture = await localFixture()
    const me = selfIdentity()
    // A process that has exited: its pid is free (or reused by a process with another start time).
    const gone = spawn(process.execPath, ['-e', ''])
    await new Promise((resolve) => gone.once('close', resolve))
    const dead = `${STAGING_PREFIX}p.${me.boot}.${me.ns}.${gone.pid}.1.abcdef`
    const previousBoot = `${STAGING_PREFIX}p.00000000.${me.ns}.${process.pid}.${me.start}.ghijkl`
    // A live process (this one, with its real start time) that is mid-write.
    const live = `${STAGING_PREFIX}p.${me.boot}.${me.ns}.${process.pid}.${me.start}.mnopqr`
    for (const name of [dead, previousBoot, live]) {
      await mkdir(join(fixture.dir, name), { mode: 0o700 })
      await writeFile(join(fixture.dir, name, 'content'), 'staged')
    }
    await writeFile(join(fixture.dir, 'seen.txt'), 'x')
    const entries = await fixture.fs.listDir(await fixture.fs.resolve('.'))
    expect(entries.map((entry) => entry.name)).toEqual(['seen.txt'])
    expect((await readdir(fixture.dir)).sort()).toEqual([live, 'seen.txt'])
    expect(await readFile(join(fixture.dir, live, 'content'), 'utf8')).toBe('staged')
    await fixture.dispose()
  })

  it('keeps and lists a user\'s own entries named like staging through writes and listings', async () => {
    const fixture = await localFixture()
    await writeFile(join(fixture.dir, `${STAGING_PREFIX}xxx`), 'mine')
    await mkdir(join(fixture.dir, `${STAGING_PREFIX}notes`), { mode: 0o700 })
    await writeFile(join(fixture.dir, `${STAGING_PREFIX}notes`, 'content'), 'mine too')
    await fixture.fs.writeText(await fixture.fs.resolve('file.txt'), 'x')
    const entries = await fixture.fs.listDir(await fixture.fs.resolve('.'))
    expect(entries.map((entry) => entry.name)).toEqual([`${STAGING_PREFIX}notes`, `${STAGING_PREFIX}xxx`, 'file.txt'])
    expect(await readFile(join(fixture.dir, `${STAGING_PREFIX}xxx`), 'utf8')).toBe('mine')
    expect(await readFile(join(fixture.dir, `${STAGING_PREFIX}notes`, 'content'), 'utf8')).toBe('mine too')
    await fixture.dispose()
  })

  it('removes a SIGKILLed writer\'s residue when the next dsh process starts, in a directory nobody writes or lists again', async () => {
    const state = await tempDir('dsh-fs-local-state-')
    const env = { ...process.env, XDG_STATE_HOME: state }
    const dir = await tempDir()
    await mkdir(join(dir, 'deep', 'er'), { recursive: true })
    const size = 8 * 1024 * 1024
    const where = join(dir, 'deep', 'er')
    await writeFile(join(where, 'big.txt'), 'A'.repeat(size))
    const child = start(['loop', dir, 'deep/er/big.txt', String(size), '0'], env)
    await new Promise((resolve) => child.stdout!.once('data', resolve))
    const deadline = Date.now() + 20_000
    while (staged(await readdir(where)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1))
    const closed = new Promise((resolve) => child.once('close', resolve))
    child.kill('SIGKILL')
    await closed
    expect(staged(await readdir(where)).length, 'the kill landed while staging existed').toBeGreaterThan(0)
    // The dead writer's journal names the directory; a new process (elsewhere) reads it as it starts.
    expect(await readdir(join(state, 'dsh', 'staging'))).toHaveLength(1)
    const fresh = start([await tempDir()], env, reclaimer)
    const { removed } = JSON.parse(await output(fresh)) as { removed: number }
    expect(removed).toBeGreaterThan(0)
    expect(staged(await readdir(where))).toEqual([])
    // Its own journal went with its normal exit; the dead writer's was reclaimed.
    expect(await readdir(join(state, 'dsh', 'staging'))).toEqual([])
  }, 60_000)
})
