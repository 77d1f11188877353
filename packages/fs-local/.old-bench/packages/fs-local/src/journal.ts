import { constants, existsSync, rmSync } from 'node:fs'
import { appendFile, type FileHandle, lstat, mkdir, mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { GRACE_MS, listenLiveness, type Liveness, pidVerdict, probeLiveness, selfIdentity, setSharedLiveness } from './liveness'
import { reclaimDeadLocks } from './publish-lock'
import { liveStagingCount, reclaimStaging, withDirectory } from './staging'

/**
 * Where this process stages, kept outside the user's tree so that a later process can clean up
 * after a crash wherever it happened. Each process has one journal directory in
 * `$XDG_STATE_HOME/dsh/staging` (default `~/.local/state/dsh/staging`): a liveness socket `live`
 * and a file `dirs` listing, once each, the directories it stages in, appended before its first
 * staging there. A process that exits normally with nothing staged removes its journal. The first
 * LocalDisk of every process reclaims, in the background, the residue in every directory a dead
 * process's journal names, then removes that journal. Best effort throughout: without a writable
 * state directory the sweeps on write and listing remain.
 */
const MAX_DIRS = 4096

function journalsDir(): string {
  const state = process.env.XDG_STATE_HOME !== undefined && process.env.XDG_STATE_HOME.startsWith('/')
    ? process.env.XDG_STATE_HOME
    : join(homedir(), '.local', 'state')
  return join(state, 'dsh', 'staging')
}

interface Journal {
  dir: string
  handle: FileHandle
  live: Liveness | undefined
}

let journal: Promise<Journal | undefined> | undefined
const noted = new Map<string, Promise<void>>()

async function openJournal(): Promise<Journal | undefined> {
  try {
    const root = journalsDir()
    await mkdir(root, { recursive: true, mode: 0o700 })
    const me = selfIdentity()
    const dir = await mkdtemp(join(root, `${me.boot}.${me.ns}.${me.pid}.${me.start}.`))
    const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
    const short = existsSync('/proc/self/fd') ? `/proc/self/fd/${handle.fd}` : dir
    const opened = { dir, handle, live: listenLiveness(join(short, 'live')) }
    setSharedLiveness(opened.live?.path)
    process.once('exit', () => {
      // Staging still held at exit (a write cut short) stays journaled for the next process.
      if (liveStagingCount() === 0) rmSync(dir, { recursive: true, force: true })
      setSharedLiveness(undefined)
    })
    return opened
  } catch {
    return undefined
  }
}

/** Records that this process stages in `dir` (a real path), before its first staging there. */
export function noteStagingDirectory(dir: string): Promise<void> | undefined {
  if (noted.has(dir)) return noted.get(dir)
  if (noted.size >= MAX_DIRS) return undefined
  const note = (async () => {
    journal ??= openJournal()
    const opened = await journal
    if (opened !== undefined) await appendFile(join(opened.dir, 'dirs'), `${JSON.stringify(dir)}\n`).catch(() => {})
  })()
  noted.set(dir, note)
  return note
}

/** Whether the journal directory `path` belongs to a process that is certainly gone. */
async function isDeadJournal(path: string, name: string): Promise<boolean> {
  const members = await readdir(path)
  if (members.includes('live')) {
    if ((await withDirectory(path, (short) => probeLiveness(join(short, 'live')))) !== 'dead') return false
    // `dirs` is written after `listen`; a lone refusing socket may be between bind and listen.
    return members.includes('dirs') || Date.now() - (await lstat(join(path, 'live'))).ctimeMs >= GRACE_MS
  }
  const [boot, ns, pid, start] = name.split('.')
  if (boot === undefined || ns === undefined || start === undefined || !/^\d+$/.test(pid ?? '')) return false
  return (await pidVerdict({ boot, ns, pid: Number(pid), start })) === 'dead'
}

async function reclaimJournal(path: string): Promise<number> {
  const text = await readFile(join(path, 'dirs'), 'utf8').catch(() => '')
  let removed = 0
  for (const line of new Set(text.split('\n'))) {
    let dir: unknown
    try {
      dir = JSON.parse(line)
    } catch {
      continue
    }
    if (typeof dir !== 'string') continue
    removed += await reclaimStaging(dir)
    await reclaimDeadLocks(dir)
  }
  await rm(path, { recursive: true, force: true })
  return removed
}

let reclaiming: Promise<number> | undefined

/**
 * Reclaims what dead processes left wherever their journals say they staged; runs once per
 * process, and resolves with the number of staging directories removed.
 */
export function reclaimAfterCrashes(): Promise<number> {
  reclaiming ??= (async () => {
    let removed = 0
    const root = journalsDir()
    const own = journal === undefined ? undefined : (await journal)?.dir
    for (const name of await readdir(root).catch(() => [] as string[])) {
      const path = join(root, name)
      if (path === own) continue
      try {
        if (await isDeadJournal(path, name)) removed += await reclaimJournal(path)
      } catch {}
    }
    return removed
  })()
  return reclaiming
}
