import { type ChildProcess, spawn } from 'node:child_process'
import { chmod, lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { bundleEntry } from '../../../../scripts/reliability/bundle'
import { recordSection, sized, STRESS } from '../../../../scripts/reliability/record'
import { LocalDisk, STAGING_PREFIX } from '../../src'
import { tempDir } from '../fixture'
import { CRASH_TARGETS, type CrashTarget, contentOf, generationOf } from './children/contents'
import { runSeed, seededRandom } from './random'

const KILLS = sized(12, 200)
// A kill waits for 0–2 acknowledged generations, then 0–MAX_DELAY_MS more: the acknowledgements
// make sure the writer is inside its loops whatever the machine's load, the delay spreads the kill
// over staging, fsync and publication.
const MAX_DELAY_MS = 150

let crasher: string

beforeAll(async () => {
  const out = await tempDir('dsh-reliability-child-')
  await chmod(out, 0o755)
  crasher = await bundleEntry(join(import.meta.dirname, 'children', 'crasher.ts'), out)
}, 60_000)

interface Run {
  acked: Map<CrashTarget, number>
  errors: string[]
}

/** Starts a writer, kills it `delay` ms after its `acks`-th acknowledgement, and returns what it acknowledged. */
async function killAfter(dir: string, acks: number, delay: number): Promise<Run> {
  const child: ChildProcess = spawn(process.execPath, [crasher, dir], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk))
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    const check = () => (out.includes('ready\n') && out.split('\n').length - 2 >= acks ? resolve() : undefined)
    child.stdout!.on('data', check)
    child.once('close', () => reject(new Error(`writer exited before ready: ${out}`)))
  })
  await new Promise((resolve) => setTimeout(resolve, delay))
  child.kill('SIGKILL')
  await closed
  expect(child.signalCode, `the writer died by itself: ${out.slice(-500)}`).toBe('SIGKILL')
  // Everything the writer wrote to the pipe before it died is still readable after 'close'.
  const acked = new Map<CrashTarget, number>()
  const errors: string[] = []
  for (const line of out.split('\n')) {
    if (line.startsWith('error ')) errors.push(line)
    const [target, generation] = line.split(' ')
    if ((CRASH_TARGETS as readonly string[]).includes(target!)) acked.set(target as CrashTarget, Number(generation))
  }
  return { acked, errors }
}

/**
 * The staging residue in `dir`. A staged replacement has a fixed name per target, so the same name
 * left by two writers in a row is two different residues: the staged file's inode and birth time are
 * part of what is compared (ext4 hands a freed inode number to the next file at once; the birth
 * time tells the two apart).
 */
async function stagingIn(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => name.startsWith(STAGING_PREFIX))
  return Promise.all(names.map(async (name) => {
    if (!name.startsWith(`${STAGING_PREFIX}f.`)) return name
    const { ino, birthtimeNs } = await lstat(join(dir, name), { bigint: true }).catch(() => ({ ino: 0n, birthtimeNs: 0n }))
    return `${name} inode ${ino} born ${birthtimeNs}`
  }))
}

it(`leaves every target at exactly its old or its new bytes across ${KILLS} SIGKILLs, and the next writer reclaims the staging`, async () => {
  const seed = runSeed()
  console.info(`crash-safety seed ${seed} (replay with DSH_SEED=${seed})`)
  const random = seededRandom(seed)
  const dir = await tempDir('dsh-reliability-crash-')
  const generation = new Map<CrashTarget, number>()
  for (const target of CRASH_TARGETS) {
    await mkdir(dirname(join(dir, target)), { recursive: true })
    await writeFile(join(dir, target), contentOf(target, 0))
    generation.set(target, 0)
  }
  const stagingDirs = [...new Set(CRASH_TARGETS.map((target) => dirname(join(dir, target))))]
  const outcome = { old: 0, new: 0, residueLeft: 0, residueReclaimed: 0, kills: 0, committed: 0 }
  let residue = new Map<string, string[]>()

  for (let kill = 0; kill < KILLS; kill++) {
    const run = await killAfter(dir, Math.floor(random() * 3), Math.floor(random() * MAX_DELAY_MS))
    outcome.kills++
    expect(run.errors, `seed ${seed}, kill ${kill}`).toEqual([])
    for (const target of CRASH_TARGETS) {
      const bytes = await readFile(join(dir, target))
      const text = bytes.toString('utf8')
      const start = generation.get(target)!
      const acked = run.acked.get(target) ?? start
      const found = generationOf(text)
      // Old = the last acknowledged generation; new = the one in flight when the kill landed.
      expect([acked, acked + 1], `seed ${seed}, kill ${kill}, ${target}: header ${JSON.stringify(text.slice(0, 20))}`).toContain(found)
      expect(bytes.length, `seed ${seed}, kill ${kill}, ${target}: length`).toBe(Buffer.byteLength(contentOf(target, found!)))
      expect(text === contentOf(target, found!), `seed ${seed}, kill ${kill}, ${target}: bytes of generation ${found}`).toBe(true)
      if (found === acked) outcome.old++
      else outcome.new++
      outcome.committed += found! - start
      generation.set(target, found!)
    }
    // A writer that acknowledged a generation in a directory has published there, so it swept the
    // residue the previous dead writer left in that directory before its first publication.
    for (const parent of stagingDirs) {
      const wrote = CRASH_TARGETS.some((target) => dirname(join(dir, target)) === parent && run.acked.has(target))
      const now = await stagingIn(parent)
      if (wrote) {
        const stale = (residue.get(parent) ?? []).filter((name) => now.includes(name))
        expect(stale, `seed ${seed}, kill ${kill}: a dead writer's staging survived the next writer in ${parent} (now: ${now.join(", ")})`).toEqual([])
        outcome.residueReclaimed += (residue.get(parent) ?? []).length
        residue.set(parent, now)
      } else {
        residue.set(parent, [...new Set([...(residue.get(parent) ?? []), ...now])])
      }
    }
    outcome.residueLeft = [...residue.values()].reduce((sum, names) => sum + names.length, 0)
  }

  // The next provider that writes in each directory reclaims whatever the last dead writer left.
  const leftAtEnd = outcome.residueLeft
  const disk = new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 64 << 20 })
  for (const target of CRASH_TARGETS) {
    await disk.writeText(await disk.resolve(target), contentOf(target, generation.get(target)! + 1))
  }
  for (const parent of stagingDirs) expect(await stagingIn(parent)).toEqual([])
  expect(outcome.committed, 'the writers made progress between kills').toBeGreaterThan(0)

  console.info(`crash safety: ${JSON.stringify(outcome)}`)
  await recordSection({
    id: '1-crash-safety',
    title: 'Crash safety (SIGKILL during writes and edits)',
    method: 'A bundled child process advances three files concurrently — an unguarded write cycling 1 B to 1.5 MB, a '
      + 'version-guarded edit of a 280 kB file, a version-guarded replace in a nested directory — and acknowledges each '
      + `committed generation. The parent SIGKILLs it 0–${MAX_DELAY_MS} ms after its 0th–2nd acknowledgement, then checks every file byte `
      + 'for byte against the last acknowledged generation (old) or the one in flight (new).',
    facts: [
      ['SIGKILLs', outcome.kills],
      ['target checks (kills × 3 files)', outcome.old + outcome.new],
      ['file held the old generation', outcome.old],
      ['file held the new (unacknowledged) generation', outcome.new],
      ['mixed, truncated or empty files', 0],
      ['generations committed across all runs', outcome.committed],
      ['dead writers\' staging directories reclaimed by the next writer', outcome.residueReclaimed],
      ['staging left by the last writer, reclaimed by a final provider write', leftAtEnd],
      ['seed', seed],
    ],
  })
}, STRESS ? 600_000 : 120_000)
