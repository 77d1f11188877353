import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { constants } from 'node:fs'
import { type FileHandle, mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ownerKey } from '../owners'
import { decodeJournal, encodeRecord, type JournalRecord } from './journal'
import { Shelf } from './shelf'
import { type Ledger, LedgerError, type LedgerLimits, type Owner, type StoredOutcome } from './types'

/** Below this size a journal is never compacted: rewriting it would cost more than it frees. */
const COMPACT_FLOOR = 1024 * 1024

interface Waiter {
  line: string
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * A ledger in one journal file, for a single process that must remember across restarts (stdio).
 * This is the ledger's own storage, not the workspace: the file lives wherever the config says and
 * the fs provider never sees it. The shelves in memory are the journal replayed; every write is
 * appended and made durable (write + fdatasync, batched: one sync serves every write queued
 * meanwhile) before its promise resolves. A lock file keeps a second process out. Growth is
 * bounded: once the journal is four times the size of what is live, it is rewritten from the
 * shelves into a new file that replaces it by rename.
 */
export class FileLedger implements Ledger {
  readonly label: string
  #observations: Shelf<FsObservation>
  #outcomes: Shelf<StoredOutcome>
  #queue: Waiter[] = []
  #flushing: Promise<void> | undefined
  #size: number
  #compactAt: number
  #closed = false
  #now: () => number

  private constructor(readonly path: string, private handle: FileHandle, size: number, private readonly limits: LedgerLimits) {
    this.label = `file:${path}`
    this.#now = limits.now ?? Date.now
    this.#observations = new Shelf(limits.maxEntriesPerOwner, limits.maxOwners)
    this.#outcomes = new Shelf(limits.maxEntriesPerOwner, limits.maxOwners)
    this.#size = size
    this.#compactAt = Math.max(COMPACT_FLOOR, size * 4)
  }

  /** Takes the lock, replays the journal (cutting a torn tail off) and opens it for appending. */
  static async open(path: string, limits: LedgerLimits): Promise<FileLedger> {
    const label = `file:${path}`
    await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch((error: unknown) => {
      throw new LedgerError(`cannot create the directory of the ledger ${label}: ${messageOf(error)}`, { cause: error })
    })
    await lock(path)
    try {
      const handle = await openJournal(path)
      const bytes = await handle.readFile()
      const { records, validLength } = decodeJournal(bytes)
      // A torn tail is cut off, so that the next append starts a line of its own.
      if (validLength < bytes.length) await handle.truncate(validLength)
      const ledger = new FileLedger(path, handle, validLength, limits)
      for (const record of records) ledger.#apply(record)
      return ledger
    } catch (error) {
      await rm(lockPath(path), { force: true })
      throw error instanceof LedgerError ? error : new LedgerError(`cannot open the ledger ${label}: ${messageOf(error)}`, { cause: error })
    }
  }

  #apply(record: JournalRecord): void {
    if (record.x <= this.#now()) return
    if (record.t === 'o') this.#observations.set(record.w, record.k, record.v as FsObservation, record.x)
    else this.#outcomes.set(record.w, record.k, record.v as StoredOutcome, record.x)
  }

  get(owner: Owner, targetKey: string): FsObservation | undefined {
    return this.#observations.get(ownerKey(owner), targetKey, this.#now())
  }

  put(owner: Owner, targetKey: string, observation: FsObservation): Promise<void> {
    return this.#write({ t: 'o', w: ownerKey(owner), k: targetKey, v: observation, x: this.#now() + this.limits.entryTtlMs })
  }

  getOutcome(owner: Owner, id: string): StoredOutcome | undefined {
    return this.#outcomes.get(ownerKey(owner), id, this.#now())
  }

  putOutcome(owner: Owner, id: string, outcome: StoredOutcome): Promise<void> {
    return this.#write({ t: 'r', w: ownerKey(owner), k: id, v: outcome, x: this.#now() + this.limits.retryTtlMs })
  }

  #write(record: JournalRecord): Promise<void> {
    if (this.#closed) return Promise.reject(new LedgerError(`the ledger ${this.label} is closed`))
    this.#apply(record)
    return new Promise((resolve, reject) => {
      this.#queue.push({ line: encodeRecord(record), resolve, reject })
      this.#flushing ??= this.#flush()
    })
  }

  /** Appends and syncs every queued line, batch after batch, until the queue is empty. */
  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0)
      const bytes = Buffer.from(batch.map((waiter) => waiter.line).join(''), 'utf8')
      try {
        await this.handle.write(bytes, 0, bytes.length, this.#size)
        await this.handle.datasync()
        this.#size += bytes.length
        for (const waiter of batch) waiter.resolve()
      } catch (error) {
        // Cut back whatever part of the batch reached the file, so later lines do not follow a torn one.
        await this.handle.truncate(this.#size).catch(() => {})
        const failure = new LedgerError(`cannot write the ledger ${this.label}: ${messageOf(error)}`, { cause: error })
        for (const waiter of batch) waiter.reject(failure)
      }
      if (this.#size > this.#compactAt) await this.#compact().catch(() => {})
    }
    this.#flushing = undefined
  }

  /** Rewrites the live entries into a new journal, made durable before it replaces the old one. */
  async #compact(): Promise<void> {
    const now = this.#now()
    const lines: string[] = []
    for (const [w, k, slot] of this.#observations.entries(now)) lines.push(encodeRecord({ t: 'o', w, k, v: slot.value, x: slot.expires }))
    for (const [w, k, slot] of this.#outcomes.entries(now)) lines.push(encodeRecord({ t: 'r', w, k, v: slot.value, x: slot.expires }))
    const bytes = Buffer.from(lines.join(''), 'utf8')
    const staged = `${this.path}.compact`
    // A fresh file, never through a name someone planted there (a crash's leftover goes first).
    await rm(staged, { force: true })
    const next = await open(staged, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    try {
      await next.write(bytes, 0, bytes.length, 0)
      await next.datasync()
      await rename(staged, this.path)
    } catch (error) {
      await next.close()
      await rm(staged, { force: true })
      throw error
    }
    await syncDirectory(dirname(this.path))
    await this.handle.close()
    this.handle = next
    this.#size = bytes.length
    this.#compactAt = Math.max(COMPACT_FLOOR, bytes.length * 4)
  }

  /** Waits for queued writes, then closes the journal and releases the lock. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#flushing
    await this.handle.close()
    await rm(lockPath(this.path), { force: true })
    this.#observations.clear()
    this.#outcomes.clear()
  }
}

const lockPath = (path: string) => `${path}.lock`

/**
 * The journal, opened for reading and appending without following a link: one planted at the
 * path would otherwise have its target truncated to the journal's valid prefix. Only a regular
 * file is a journal (a FIFO there would stall the start).
 */
async function openJournal(path: string): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600)
    .catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ELOOP' ? new LedgerError(`the ledger file:${path} is a symbolic link; name the journal file itself`, { cause: error }) : error
    })
  if (!(await handle.stat()).isFile()) {
    await handle.close()
    throw new LedgerError(`the ledger file:${path} is not a regular file; name a file (it is created if missing)`)
  }
  return handle
}

/**
 * One process per journal: the lock file holds the owner's pid. A lock left by a process that no
 * longer runs (a crash) is taken over; a live one is a start error naming that process.
 */
async function lock(path: string): Promise<void> {
  const file = lockPath(path)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600)
      await handle.writeFile(`${process.pid}\n`)
      await handle.close()
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LedgerError(`cannot lock the ledger file:${path}: ${messageOf(error)}`, { cause: error })
    }
    const pid = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10)
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
      throw new LedgerError(`the ledger file:${path} is in use by process ${pid}; give this dsh its own ledger file, or use a redis:// ledger to share one`)
    }
    await rm(file, { force: true })
  }
  throw new LedgerError(`cannot lock the ledger file:${path}: another process keeps taking ${file}`)
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
