import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { chmod, lstat, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleEntry } from '../../../../scripts/reliability/bundle'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
import { LocalDisk, reclaimStaging, STAGING_PREFIX } from '../../src'
import { POOLED_CALLS } from '../../src/calls'
import { discard, makeStaged, stagedNameOf } from '../../src/staging'
import { tempDir } from '../fixture'

// Two dsh servers in two containers on one bind-mounted workspace: each racer below that runs in
// its own PID namespace (`unshare --pid`) sees the others' pids as free or as someone else's.
const UNSHARE = ['--pid', '--fork', '--kill-child', '--mount-proc']
const probe = spawnSync('unshare', [...UNSHARE, 'true'], { stdio: 'ignore' })
const CAN_UNSHARE = probe.status === 0
const SKIP_REASON = CAN_UNSHARE ? '' : ` (skipped: \`unshare ${UNSHARE.join(' ')}\` failed here: ${probe.error?.message ?? `exit ${probe.status}`}; it needs root or CAP_SYS_ADMIN)`
if (!CAN_UNSHARE) console.warn(`namespaces spec${SKIP_REASON}`)

const ROUNDS = sized(20, 300)
const LEAD_MS = 120
/** Rounds of each liveness case below: each waits past an old lease or grace (6 to 11 s), so the full size stays small. */
const LIVENESS = sized(1, 4)
/** Crashed writers whose residue must go at once (no wait in these rounds). */
const CRASHES = sized(1, 15)
const roundsOf = (n: number) => `${n} round${n === 1 ? '' : 's'}`

/** What the liveness cases observed, for their section of the report. */
const liveness = {
  lockRounds: 0, lockTakenWhileHeld: 0, lockedRounds: 0, slowRounds: 0, publishedOverSlowWriter: 0, staleAnswers: 0, lostUpdates: 0,
  liveStagings: 0, stoppedWriters: 0, stoppedMs: 0, callsDuringStops: 0, stagingRemovedWhileAlive: 0, resumedWritesSucceeded: 0,
  crashedWriters: 0, residueRemovedAtOnce: 0,
}

/** Starts `node <script> ...args`, in a new PID namespace when `foreign`. */
function startNode(script: string, args: string[], foreign: boolean, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const [command, argv] = foreign ? ['unshare', [...UNSHARE, process.execPath, script, ...args]] : [process.execPath, [script, ...args]]
  return spawn(command, argv, { stdio: ['pipe', 'pipe', 'inherit'], env })
}

function stagingIn(names: string[]): string[] {
  return names.filter((name) => name.startsWith(STAGING_PREFIX))
}

/** Longer than every age the previous design judged liveness by (a 5 s lock lease, a 10 s sweep grace). */
const PAST_EVERY_CLOCK_MS = 11_000

/**
 * Starts the holder in another PID namespace on a replacement of `held.txt` (which holds
 * `before`), and returns once it has stopped at `where` (`staged`: before its fsync; `fsync`:
 * inside its fsync, which does not return until released; `locked`: holding the publication lock).
 */
async function holdReplacement(prefix: string, content: string, where: 'staged' | 'fsync' | 'locked' = 'staged', guarded = false) {
  const holder = await bundleEntry(join(import.meta.dirname, 'children', 'holder.ts'), out)
  const dir = await tempDir(prefix)
  await writeFile(join(dir, 'held.txt'), 'before\n')
  const child = startNode(holder, [dir, 'held.txt', content, where, ...(guarded ? ['guarded'] : [])], true)
  const lines = createInterface({ input: child.stdout! })
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve))
  expect(await next()).toBe(where)
  return { dir, child, next }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const disk = (dir: string) => new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })
let out: string

beforeAll(async () => {
  if (!CAN_UNSHARE) return
  out = await tempDir('dsh-reliability-child-')
  await chmod(out, 0o755)
}, 60_000)

describe.skipIf(!CAN_UNSHARE)(`writers in different PID namespaces${SKIP_REASON}`, () => {
  interface Answer { round: number; id: number; ok: boolean; code?: string }
  const RACERS = 4
  let dir: string
  let racers: ChildProcess[] = []
  const pending = new Map<number, (answer: Answer) => void>()
  const tally = { rounds: 0, exactlyOne: 0, twoOrMore: 0, none: 0, lost: 0, losers: 0 }

  beforeAll(async () => {
    const racer = await bundleEntry(join(import.meta.dirname, 'children', 'racer.ts'), out)
    dir = await tempDir('dsh-reliability-namespaces-')
    // Racers 0 and 1 share our namespace; 2 and 3 each get a namespace of their own (both are pid 1 there).
    racers = Array.from({ length: RACERS }, (_, id) => startNode(racer, [dir, String(id)], id >= 2))
    await Promise.all(racers.map((child) => new Promise<void>((ready) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line === 'ready') return ready()
        const answer = JSON.parse(line) as Answer
        pending.get(answer.round * 10 + answer.id)!(answer)
      })
    })))
  }, 60_000)

  afterAll(() => {
    for (const child of racers) child.kill('SIGKILL')
  })

  it(`lets exactly one racer win each guarded replace and edit across namespaces, for ${ROUNDS} rounds`, async () => {
    const local = disk(dir)
    const failures: string[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      const edit = round % 2 === 0
      const name = `${edit ? 'edit' : 'replace'}-${round}.txt`
      await writeFile(join(dir, name), edit ? `value = 0\n${'context line\n'.repeat(2_000)}` : 'base\n')
      const version = (await local.stat(await local.resolve(name)))!.version
      const at = Date.now() + LEAD_MS
      const answers = await Promise.all(racers.map((child, id) => new Promise<Answer>((resolve) => {
        pending.set(round * 10 + id, resolve)
        const content = edit ? `value = ${id + 1}` : `writer ${id}\n`.repeat(2_000)
        child.stdin!.write(`${JSON.stringify({ round, op: edit ? 'edit' : 'replace', path: name, content, version, at })}\n`)
      })))
      const winners = answers.filter((answer) => answer.ok)
      const text = await readFile(join(dir, name), 'utf8')
      tally.rounds++
      if (winners.length === 1) tally.exactlyOne++
      else if (winners.length === 0) tally.none++
      else tally.twoOrMore++
      // A reported success whose bytes are not on disk is a lost update.
      for (const winner of winners) {
        const expected = edit ? `value = ${winner.id + 1}\n${'context line\n'.repeat(2_000)}` : `writer ${winner.id}\n`.repeat(2_000)
        if (text !== expected) {
          tally.lost++
          failures.push(`round ${round} (${edit ? 'edit' : 'replace'}): racer ${winner.id} reported success, the file holds ${JSON.stringify(text.slice(0, 40))}: ${JSON.stringify(answers)}`)
        }
      }
      tally.losers += answers.filter((answer) => !answer.ok && answer.code === 'FS_STALE_VERSION').length
      if (winners.length !== 1 || answers.some((answer) => !answer.ok && answer.code !== 'FS_STALE_VERSION')) {
        failures.push(`round ${round} (${edit ? 'edit' : 'replace'}): ${JSON.stringify(answers)}`)
      }
    }
    console.info(`namespace races: ${JSON.stringify(tally)}`)
    expect(failures).toEqual([])
    expect(tally.lost).toBe(0)
    expect(stagingIn(await readdir(dir))).toEqual([])
    await recordSection({
      id: '2-races-namespaces',
      title: 'Races between processes in different PID namespaces (local disk)',
      method: `${RACERS} long-lived child processes race version-guarded replaces and edits of one file per round; two of them `
        + 'run in PID namespaces of their own (`unshare --pid --fork`), so pids mean nothing between them. Each round counts '
        + 'the winners, the losers\' codes and compares the bytes on disk with every reported success.',
      facts: [
        ['rounds (replace and edit alternating)', tally.rounds],
        ['rounds with exactly one winner', tally.exactlyOne],
        ['rounds with two or more winners', tally.twoOrMore],
        ['losers, all FS_STALE_VERSION', tally.losers],
        ['lost updates (a success whose bytes are not on disk)', tally.lost],
      ],
    })
  }, STRESS ? 600_000 : 120_000)
})

describe.skipIf(!CAN_UNSHARE)(`the publication lock held from another PID namespace${SKIP_REASON}`, () => {
  it(`is waited for, never taken, while its holder lives past every old lease, and taken once released (${roundsOf(LIVENESS)})`, async () => {
    const holder = await bundleEntry(join(import.meta.dirname, 'children', 'lock-holder.ts'), out)
    for (let round = 0; round < LIVENESS; round++) {
      const dir = await tempDir('dsh-reliability-lock-')
      const target = join(dir, 'target.txt')
      const child = startNode(holder, [target], true)
      const lines = createInterface({ input: child.stdout! })
      const next = () => new Promise<string>((resolve) => lines.once('line', resolve))
      expect(await next()).toBe('held')
      const held = await lstat(join(dir, stagedNameOf('target.txt')))
      let taken = false
      const ours = makeStaged(POOLED_CALLS, dir, 'target.txt', 0o600, 'target.txt').then((staged) => {
        taken = true
        return staged
      })
      expect(await reclaimStaging(dir)).toBe(0)
      await sleep(6_000)
      if (taken) liveness.lockTakenWhileHeld++
      expect(taken, 'a live holder in another namespace is never overtaken').toBe(false)
      expect((await lstat(join(dir, stagedNameOf('target.txt')))).ino, 'the lock is still the holder\'s').toBe(held.ino)
      child.stdin!.write('go\n')
      expect(await next()).toBe('released')
      const staged = await ours
      await discard(POOLED_CALLS, staged)
      expect(await readdir(dir)).toEqual([])
      liveness.lockRounds++
    }
  }, LIVENESS * 30_000)

  it(`keeps a guarded writer here waiting while a writer there holds it, and that write stays: this one is stale (${roundsOf(LIVENESS)})`, async () => {
    for (let round = 0; round < LIVENESS; round++) {
      const { dir, child, next } = await holdReplacement('dsh-reliability-locked-', 'from there\n', 'locked', true)
      const local = disk(dir)
      const target = await local.resolve('held.txt')
      const version = (await local.stat(target))!.version
      let answered = false
      const ours = local.writeText(target, 'from here\n', { expected: { kind: 'replaceIfVersion', version } }).finally(() => (answered = true))
      ours.catch(() => {})
      await sleep(6_000)
      if (answered) liveness.publishedOverSlowWriter++
      expect(answered, 'no write here while the lock is held there').toBe(false)
      child.stdin!.write('go\n')
      expect(JSON.parse(await next())).toEqual({ ok: true })
      await expect(ours).rejects.toMatchObject({ code: 'FS_STALE_VERSION' })
      liveness.staleAnswers++
      if (await readFile(join(dir, 'held.txt'), 'utf8') !== 'from there\n') liveness.lostUpdates++
      expect(await readFile(join(dir, 'held.txt'), 'utf8')).toBe('from there\n')
      expect(stagingIn(await readdir(dir))).toEqual([])
      child.kill('SIGKILL')
      liveness.lockedRounds++
    }
  }, LIVENESS * 30_000)
})

describe.skipIf(!CAN_UNSHARE)(`a writer in another PID namespace with a slow fsync${SKIP_REASON}`, () => {
  it(`is waited for past the old 5 s lease, never overtaken, wins, and the guarded write here is stale: no lost update (${roundsOf(LIVENESS)})`, async () => {
    for (let round = 0; round < LIVENESS; round++) {
      const { dir, child, next } = await holdReplacement('dsh-reliability-slow-', 'from there\n', 'fsync', true)
      const local = disk(dir)
      const target = await local.resolve('held.txt')
      const version = (await local.stat(target))!.version
      let answered = false
      const ours = local.writeText(target, 'from here\n', { expected: { kind: 'replaceIfVersion', version } }).finally(() => (answered = true))
      ours.catch(() => {})
      // Its fsync lasts past the old 5 s lease: nothing here may read the slow writer as dead.
      await sleep(6_000)
      if (answered) liveness.publishedOverSlowWriter++
      expect(answered, 'nothing here publishes over a writer still staging').toBe(false)
      expect(await readFile(join(dir, 'held.txt'), 'utf8')).toBe('before\n')
      child.stdin!.write('go\n')
      expect(JSON.parse(await next())).toEqual({ ok: true })
      await expect(ours).rejects.toMatchObject({ code: 'FS_STALE_VERSION' })
      liveness.staleAnswers++
      if (await readFile(join(dir, 'held.txt'), 'utf8') !== 'from there\n') liveness.lostUpdates++
      expect(await readFile(join(dir, 'held.txt'), 'utf8')).toBe('from there\n')
      expect(stagingIn(await readdir(dir))).toEqual([])
      child.kill('SIGKILL')
      liveness.slowRounds++
    }
  }, LIVENESS * 30_000)
})

describe.skipIf(!CAN_UNSHARE)(`staging of a writer in another PID namespace${SKIP_REASON}`, () => {
  it('is never removed while its writer lives, by a write, a listing or an explicit sweep here', async () => {
    const holder = await bundleEntry(join(import.meta.dirname, 'children', 'holder.ts'), out)
    const dir = await tempDir('dsh-reliability-holder-')
    const child = startNode(holder, [dir, 'new.txt', 'from the other namespace\n'], true)
    const lines = createInterface({ input: child.stdout! })
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve))
    expect(await next()).toBe('staged')
    const staged = stagingIn(await readdir(dir))
    expect(staged).toHaveLength(1)
    expect(staged[0]).toBe(stagedNameOf('new.txt'))
    const local = disk(dir)
    await local.writeText(await local.resolve('here.txt'), 'ours\n')
    expect((await local.listDir(await local.resolve('.'))).map((entry) => entry.name)).toEqual(['here.txt'])
    expect(await reclaimStaging(dir)).toBe(0)
    if (stagingIn(await readdir(dir)).length !== 1) liveness.stagingRemovedWhileAlive++
    expect(stagingIn(await readdir(dir))).toEqual(staged)
    expect(await readFile(join(dir, staged[0]!), 'utf8')).toBe('from the other namespace\n')
    liveness.liveStagings++
    child.stdin!.write('go\n')
    expect(JSON.parse(await next())).toEqual({ ok: true })
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('from the other namespace\n')
    expect(stagingIn(await readdir(dir))).toEqual([])
    child.kill('SIGKILL')
  })

  it(`is never removed while its writer is stopped (SIGSTOP) past every old grace, and that write then succeeds (${roundsOf(LIVENESS)})`, async () => {
    for (let round = 0; round < LIVENESS; round++) {
      const { dir, child, next } = await holdReplacement('dsh-reliability-paused-', 'from the other namespace\n')
      const [file] = stagingIn(await readdir(dir)) as [string]
      expect(file).toMatch(/^\.dsh-staging\.f\./)
      child.kill('SIGSTOP')
      const stopped = Date.now()
      try {
        const local = disk(dir)
        for (const started = Date.now(); Date.now() - started < PAST_EVERY_CLOCK_MS;) {
          await local.writeText(await local.resolve('here.txt'), `ours at ${Date.now()}\n`)
          expect((await local.listDir(await local.resolve('.'))).map((entry) => entry.name)).toEqual(['held.txt', 'here.txt'])
          expect(await reclaimStaging(dir)).toBe(0)
          liveness.callsDuringStops += 3
          await sleep(500)
        }
        if (stagingIn(await readdir(dir)).length !== 1) liveness.stagingRemovedWhileAlive++
        expect(stagingIn(await readdir(dir))).toEqual([file])
        expect(await readFile(join(dir, file), 'utf8')).toBe('from the other namespace\n')
      } finally {
        child.kill('SIGCONT')
      }
      liveness.stoppedWriters++
      liveness.stoppedMs = Math.max(liveness.stoppedMs, Date.now() - stopped)
      child.stdin!.write('go\n')
      expect(JSON.parse(await next())).toEqual({ ok: true })
      expect(await readFile(join(dir, 'held.txt'), 'utf8')).toBe('from the other namespace\n')
      liveness.resumedWritesSucceeded++
      expect(stagingIn(await readdir(dir))).toEqual([])
      child.kill('SIGKILL')
    }
  }, LIVENESS * 60_000)

  it(`is removed by the next listing or write here at once when that writer is SIGKILLed right after staging (${roundsOf(CRASHES)})`, async () => {
    for (let round = 0; round < CRASHES; round++) for (const sweep of ['list', 'write'] as const) {
      const { dir, child } = await holdReplacement('dsh-reliability-crashed-', 'the replacement\n')
      const closed = new Promise((resolve) => child.once('close', resolve))
      child.kill('SIGKILL')
      await closed
      const [residue] = stagingIn(await readdir(dir))
      expect(await readFile(join(dir, residue!), 'utf8')).toBe('the replacement\n')
      // Its pid means nothing here; nobody holds its lock any more: proof, with no wait.
      const local = disk(dir)
      if (sweep === 'list') expect((await local.listDir(await local.resolve('.'))).map((entry) => entry.name)).toEqual(['held.txt'])
      else await local.writeText(await local.resolve('other.txt'), 'x')
      liveness.crashedWriters++
      expect(stagingIn(await readdir(dir)), `after a ${sweep}`).toEqual([])
      liveness.residueRemovedAtOnce++
      expect(await readFile(join(dir, 'held.txt'), 'utf8')).toBe('before\n')
    }
  }, CRASHES * 60_000)
})

afterAll(async () => {
  const ran = liveness.lockRounds === LIVENESS && liveness.lockedRounds === LIVENESS && liveness.slowRounds === LIVENESS
    && liveness.stoppedWriters === LIVENESS && liveness.liveStagings === 1 && liveness.crashedWriters === 2 * CRASHES
  if (!ran) return
  await recordSection({
    id: '2-races-namespaces-liveness',
    title: 'Liveness without timers across PID namespaces (local disk)',
    method: 'A writer in a PID namespace of its own (`unshare --pid`) stops at a chosen point of a write: holding the publication '
      + 'lock, before its fsync (a slow disk), or SIGSTOPped, each for longer than the 5 s lease and 10 s sweep grace the old '
      + 'design judged liveness by; meanwhile this process writes, lists and sweeps the same directory. Then the writer goes on, '
      + 'or is SIGKILLed right after staging. Liveness is the kernel lock its process holds, never an age.',
    facts: [
      ['slow-fsync rounds (its fsync lasting 6 s)', liveness.slowRounds],
      ['lost updates', liveness.lostUpdates],
      ['staging of a live or stopped writer removed', liveness.stagingRemovedWhileAlive],
      ['rounds with a guarded write there holding the publication lock for 6 s', liveness.lockedRounds],
      ['rounds with a staged name (the lock) held there for 6 s, taken here once released', liveness.lockRounds],
      ['writes here published over a writer still staging or holding the lock', liveness.publishedOverSlowWriter],
      ['locks taken while their holder lived', liveness.lockTakenWhileHeld],
      ['guarded writes here answered FS_STALE_VERSION after the writer there won', liveness.staleAnswers],
      ['writers SIGSTOPped after staging', liveness.stoppedWriters],
      ['longest stop (ms)', liveness.stoppedMs],
      ['writes, listings and sweeps here during the stops', liveness.callsDuringStops],
      ['stopped writers whose write succeeded on resume', liveness.resumedWritesSucceeded],
      ['writers SIGKILLed right after staging', liveness.crashedWriters],
      ['their residue removed by the next listing or write, with no wait', liveness.residueRemovedAtOnce],
    ],
  })
})
