import { appendFile as appendFd, close, constants, open as openFd } from 'node:fs'
import { mkdir, open, readdir, readFile, unlink } from 'node:fs/promises'
import { promisify } from 'node:util'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { POOLED_CALLS } from './calls'
import { tryHold } from './kernel-lock'
import { reclaimStaging } from './staging'

/**
 * One `<random>.journal` per `LocalProcess` in `$XDG_STATE_HOME/dsh/staging` lists the directories it
 * stages in, kernel-locked while it lives: a journal that can be locked is a dead process's, and
 * `reclaimAfterCrashes` sweeps what it names. Best effort: the sweeps on write and listing remain.
 */
const MAX_DIRS = 4096

function journalsDir(): string {
  const state = process.env.XDG_STATE_HOME
  return join(state?.startsWith('/') ? state : join(homedir(), '.local', 'state'), 'dsh', 'staging')
}

/** The journal of one `LocalProcess`, opened on its first staging. */
export class Journal {
  #opened: Promise<{ path: string; fd: number } | undefined> | undefined
  #noted = new Map<string, Promise<void>>()

  /** Records that this process stages in `dir` (a real path), before its first staging there. */
  note(dir: string): Promise<void> | undefined {
    if (this.#noted.has(dir)) return this.#noted.get(dir)
    if (this.#noted.size >= MAX_DIRS) return undefined
    const note = (async () => {
      this.#opened ??= openJournal()
      const opened = await this.#opened
      if (opened !== undefined) await promisify(appendFd)(opened.fd, `${JSON.stringify(dir)}\n`).catch(() => {})
    })()
    this.#noted.set(dir, note)
    return note
  }

  /** Removes the journal of a process that stopped with nothing staged. */
  async close(): Promise<void> {
    const opened = await this.#opened
    this.#opened = undefined
    if (opened === undefined) return
    await unlink(opened.path).catch(() => {})
    close(opened.fd, () => {})
  }
}

/** A bare descriptor, held for the process's life: a `FileHandle` would be closed, with a warning, when collected. */
async function openJournal(): Promise<{ path: string; fd: number } | undefined> {
  try {
    const root = journalsDir()
    await mkdir(root, { recursive: true, mode: 0o700 })
    const path = join(root, `${randomBytes(8).toString('hex')}.journal`)
    const fd = await promisify(openFd)(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND, 0o600)
    if (tryHold(fd) === 'held') return { path, fd }
    close(fd, () => {})
  } catch {}
  return undefined
}

/** Sweeps what the journal at `path` names and removes it, if its process is gone. */
async function reclaimJournal(path: string): Promise<number> {
  const handle = await open(path, constants.O_RDWR | constants.O_NOFOLLOW).catch(() => undefined)
  if (handle === undefined) return 0
  try {
    if (tryHold(handle.fd) !== 'held') return 0
    const [mine, named] = await Promise.all([handle.stat(), POOLED_CALLS.lstat(path).catch(() => undefined)])
    if (named?.ino !== mine.ino) return 0
    let removed = 0
    for (const line of new Set((await readFile(handle, 'utf8')).split('\n'))) {
      let dir: unknown
      try {
        dir = JSON.parse(line)
      } catch {
        continue
      }
      if (typeof dir === 'string') removed += await reclaimStaging(dir)
    }
    await unlink(path)
    return removed
  } finally {
    await handle.close().catch(() => {})
  }
}

/** Reclaims what dead processes left wherever their journals say they staged; resolves with how many entries went. */
export async function reclaimAfterCrashes(): Promise<number> {
  const root = journalsDir()
  let removed = 0
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (name.endsWith('.journal')) removed += await reclaimJournal(join(root, name)).catch(() => 0)
  }
  return removed
}
