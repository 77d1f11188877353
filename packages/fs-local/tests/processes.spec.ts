import { type ChildProcess, spawn } from 'node:child_process'
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expectFsError } from '@deepseek-ai/dsh-fs/conformance'
import { beforeAll, describe, expect, it } from 'vitest'
import { STAGING_PREFIX } from '../src'
import { bundleEntry } from '../../../scripts/reliability/bundle'
import { deadStaging, liveStaging, localFixture, tempDir } from './fixture'

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
    // Residue nobody holds a lock on (its writer is gone) and a live writer's staged file.
    const dead = [await deadStaging(fixture.dir), await deadStaging(fixture.dir)]
    const live = await liveStaging(fixture.dir)
    await writeFile(join(fixture.dir, 'seen.txt'), 'x')
    const entries = await fixture.fs.listDir(await fixture.fs.resolve('.'))
    expect(entries.map((entry) => entry.name)).toEqual(['seen.txt'])
    expect(dead).toHaveLength(2)
    expect((await readdir(fixture.dir)).sort()).toEqual([live.name, 'seen.txt'].sort())
    expect(await readFile(join(fixture.dir, live.name), 'utf8')).toBe('staged by a live writer')
    // Once its writer lets go, the next listing removes it.
    await live.release()
    await fixture.fs.listDir(await fixture.fs.resolve('.'))
    expect(await readdir(fixture.dir)).toEqual(['seen.txt'])
    await fixture.dispose()
  })

  it('keeps, lists and writes a user\'s own entries named like staging, even one of the old shape', async () => {
    const fixture = await localFixture()
    const lookalikes = [`${STAGING_PREFIX}xxx`, `${STAGING_PREFIX}f.cafe0123.1.42.7.backup`, `${STAGING_PREFIX}f.0123456789abcdef.00000000`]
    for (const name of lookalikes) await writeFile(join(fixture.dir, name), 'mine')
    await mkdir(join(fixture.dir, `${STAGING_PREFIX}notes`), { mode: 0o700 })
    await writeFile(join(fixture.dir, `${STAGING_PREFIX}notes`, 'content'), 'mine too')
    const created = await fixture.fs.writeText(await fixture.fs.resolve(`notes/${STAGING_PREFIX}f.cafe0123.1.42.7.backup`), 'note')
    expect(created.operation).toBe('create')
    await fixture.fs.writeText(await fixture.fs.resolve('file.txt'), 'x')
    const entries = await fixture.fs.listDir(await fixture.fs.resolve('.'))
    expect(entries.map((entry) => entry.name)).toEqual([...lookalikes, `${STAGING_PREFIX}notes`, 'file.txt', 'notes'].sort())
    for (const name of lookalikes) expect(await readFile(join(fixture.dir, name), 'utf8')).toBe('mine')
    expect(await readFile(join(fixture.dir, `${STAGING_PREFIX}notes`, 'content'), 'utf8')).toBe('mine too')
    const notes = await fixture.fs.listDir(await fixture.fs.resolve('notes'))
    expect(notes.map((entry) => entry.name)).toEqual([`${STAGING_PREFIX}f.cafe0123.1.42.7.backup`])
    expect(await readFile(join(fixture.dir, 'notes', `${STAGING_PREFIX}f.cafe0123.1.42.7.backup`), 'utf8')).toBe('note')
    await fixture.dispose()
  })

  it('refuses to write a name only dsh makes, and changes nothing', async () => {
    const fixture = await localFixture()
    const residue = await deadStaging(fixture.dir)
    await expectFsError(fixture.fs.writeText(await fixture.fs.resolve(residue), 'x'), 'FS_INVALID_PATH')
    expect(await readFile(join(fixture.dir, residue), 'utf8')).toBe('staged by a writer that died')
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
    expect((await readdir(join(state, 'dsh', 'staging'))).filter((name) => name.endsWith('.journal'))).toHaveLength(1)
    const fresh = start([await tempDir()], env, reclaimer)
    const { removed } = JSON.parse(await output(fresh)) as { removed: number }
    expect(removed).toBeGreaterThan(0)
    expect(staged(await readdir(where))).toEqual([])
    // The dead writer's journal was reclaimed (the new process staged nothing, so it made none).
    expect(await readdir(join(state, 'dsh', 'staging'))).toEqual([])
  }, 60_000)
})
