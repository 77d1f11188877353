import { type ChildProcess, spawn } from 'node:child_process'
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { bundleEntry } from '../../../../scripts/reliability/bundle'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
import { LocalDisk, STAGING_PREFIX } from '../../src'
import { tempDir } from '../fixture'

const ROUNDS = sized(10, 100)
const RACERS = 4
// Commands name a start instant this far ahead, so that every racer has parsed and resolved its
// command before any of them starts, even on a loaded machine.
const LEAD_MS = 120

interface Answer {
  round: number
  id: number
  ok: boolean
  code?: string
}

let dir: string
let racers: ChildProcess[] = []
const pending = new Map<number, { answers: Answer[]; done: (answers: Answer[]) => void }>()
const tally = { create: { rounds: 0, losers: 0 }, replace: { rounds: 0, losers: 0 }, edit: { rounds: 0, losers: 0 } }

beforeAll(async () => {
  const out = await tempDir('dsh-reliability-child-')
  await chmod(out, 0o755)
  const racer = await bundleEntry(join(import.meta.dirname, 'children', 'racer.ts'), out)
  dir = await tempDir('dsh-reliability-races-')
  racers = Array.from({ length: RACERS }, (_, id) => spawn(process.execPath, [racer, dir, String(id)], { stdio: ['pipe', 'pipe', 'inherit'] }))
  await Promise.all(racers.map((child) => new Promise<void>((ready) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'ready') return ready()
      const answer = JSON.parse(line) as Answer
      const slot = pending.get(answer.round)!
      slot.answers.push(answer)
      if (slot.answers.length === RACERS) slot.done(slot.answers.sort((a, b) => a.id - b.id))
    })
  })))
}, 60_000)

afterAll(() => {
  for (const child of racers) child.kill('SIGKILL')
})

let round = 0

/** Sends one command to every racer with a common start instant; resolves with all answers. */
function race(op: 'create' | 'replace' | 'edit', path: string, content: (id: number) => string, version?: string): Promise<Answer[]> {
  const id = ++round
  const answers = new Promise<Answer[]>((done) => pending.set(id, { answers: [], done }))
  const at = Date.now() + LEAD_MS
  racers.forEach((child, racer) => child.stdin!.write(`${JSON.stringify({ round: id, op, path, content: content(racer), version, at })}\n`))
  return answers
}

function winnerOf(answers: Answer[], loserCode: string, label: string): number {
  const winners = answers.filter((answer) => answer.ok)
  expect(winners.length, `${label}: ${JSON.stringify(answers)}`).toBe(1)
  expect(answers.filter((answer) => !answer.ok).map((answer) => answer.code), label).toEqual(Array(RACERS - 1).fill(loserCode))
  return winners[0]!.id
}

const disk = () => new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })

it(`lets exactly one of ${RACERS} processes win each guarded create, for ${ROUNDS} rounds`, async () => {
  for (let r = 0; r < ROUNDS; r++) {
    const name = `create-${r}.txt`
    const answers = await race('create', name, (id) => `creator ${id}\n`.repeat(5_000))
    const winner = winnerOf(answers, 'FS_NOT_OBSERVED', `create round ${r}`)
    expect(await readFile(join(dir, name), 'utf8')).toBe(`creator ${winner}\n`.repeat(5_000))
    tally.create.rounds++
    tally.create.losers += RACERS - 1
  }
}, STRESS ? 300_000 : 60_000)

it(`lets exactly one of ${RACERS} processes replace from one version, the others FS_STALE_VERSION, for ${ROUNDS} rounds`, async () => {
  const local = disk()
  for (let r = 0; r < ROUNDS; r++) {
    const name = `replace-${r}.txt`
    await writeFile(join(dir, name), 'base\n')
    const version = (await local.stat(await local.resolve(name)))!.version
    const answers = await race('replace', name, (id) => `writer ${id}\n`.repeat(5_000), version)
    const winner = winnerOf(answers, 'FS_STALE_VERSION', `replace round ${r}`)
    // No lost update: the one success reported is the content on disk.
    expect(await readFile(join(dir, name), 'utf8')).toBe(`writer ${winner}\n`.repeat(5_000))
    tally.replace.rounds++
    tally.replace.losers += RACERS - 1
  }
}, STRESS ? 300_000 : 60_000)

it(`lets exactly one of ${RACERS} processes edit from one version, for ${ROUNDS} rounds`, async () => {
  const local = disk()
  for (let r = 0; r < ROUNDS; r++) {
    const name = `edit-${r}.txt`
    await writeFile(join(dir, name), `value = 0\n${'context line\n'.repeat(5_000)}`)
    const version = (await local.stat(await local.resolve(name)))!.version
    const answers = await race('edit', name, (id) => `value = ${id + 1}`, version)
    const winner = winnerOf(answers, 'FS_STALE_VERSION', `edit round ${r}`)
    expect(await readFile(join(dir, name), 'utf8')).toBe(`value = ${winner + 1}\n${'context line\n'.repeat(5_000)}`)
    tally.edit.rounds++
    tally.edit.losers += RACERS - 1
  }
}, STRESS ? 300_000 : 60_000)

it('leaves no staging behind after the races', async () => {
  expect((await readdir(dir)).filter((name) => name.startsWith(STAGING_PREFIX))).toEqual([])
  await recordSection({
    id: '2-races-local',
    title: 'Races between processes (local disk)',
    method: `${RACERS} long-lived child processes, each with its own LocalDisk (no shared lock), receive the same command with a `
      + 'common start instant and race it. Each round checks the number of winners, the losers\' codes and the bytes on disk.',
    facts: [
      ['guarded-create rounds (exactly one winner each)', tally.create.rounds],
      ['create losers, all FS_NOT_OBSERVED', tally.create.losers],
      ['replaceIfVersion rounds (exactly one winner each)', tally.replace.rounds],
      ['replace losers, all FS_STALE_VERSION', tally.replace.losers],
      ['version-guarded edit rounds (exactly one winner each)', tally.edit.rounds],
      ['edit losers, all FS_STALE_VERSION', tally.edit.losers],
      ['lost updates', 0],
    ],
  })
})
