import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { errnoCode } from './errors'

/**
 * Staging directories are named `.dsh-staging.<boot>.<pid>.<start>.<random>`: the writer's boot id,
 * process id and process start time. Together they identify one process for the life of the
 * machine, so a later process can tell a dead writer's residue (reclaim it) from a live writer's
 * staging (never touch it), even after the pid has been reused.
 */
export const STAGING_PREFIX = '.dsh-staging.'

const PATTERN = /^\.dsh-staging\.([0-9a-f]{8}|nobootid)\.(\d+)\.(\d+|x)\.[A-Za-z0-9]{6}$/

export interface WriterIdentity {
  boot: string
  pid: number
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or `x` when unknown. */
  start: string
}

function readBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replaceAll('-', '').slice(0, 8)
  } catch {
    return 'nobootid'
  }
}

/** Field 22 of `/proc/<pid>/stat`; the command name (field 2) may itself contain spaces or parens. */
export function parseStartTime(stat: string): string | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const start = fields[19]
  return start !== undefined && /^\d+$/.test(start) ? start : undefined
}

async function startTimeOf(pid: number): Promise<string | undefined> {
  try {
    return parseStartTime(await readFile(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}

let self: WriterIdentity | undefined

/** This process's identity, computed once. */
export function selfIdentity(): WriterIdentity {
  if (self === undefined) {
    let start = 'x'
    try {
      start = parseStartTime(readFileSync(`/proc/${process.pid}/stat`, 'utf8')) ?? 'x'
    } catch {}
    self = { boot: readBootId(), pid: process.pid, start }
  }
  return self
}

export function parseStagingName(name: string): WriterIdentity | undefined {
  const match = PATTERN.exec(name)
  if (!match) return undefined
  return { boot: match[1]!, pid: Number(match[2]), start: match[3]! }
}

export function isStagingName(name: string): boolean {
  return name.startsWith(STAGING_PREFIX)
}

/**
 * Whether the writer that made a staging entry is certainly gone. Anything uncertain counts as
 * alive: leaking a directory is harmless, deleting a live writer's temp file is not.
 */
export async function isDeadWriter(owner: WriterIdentity): Promise<boolean> {
  const me = selfIdentity()
  if (owner.boot !== me.boot) return owner.boot !== 'nobootid' && me.boot !== 'nobootid'
  if (owner.pid === me.pid) return owner.start !== me.start && owner.start !== 'x'
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    // ESRCH: no such process. EPERM means it exists but belongs to someone else: alive.
    return errnoCode(error) === 'ESRCH'
  }
  if (owner.start === 'x') return false
  const start = await startTimeOf(owner.pid)
  return start !== undefined && start !== owner.start
}

/** Makes a private (0700) staging directory inside `dir`. */
export async function makeStaging(dir: string): Promise<string> {
  const me = selfIdentity()
  return mkdtemp(join(dir, `${STAGING_PREFIX}${me.boot}.${me.pid}.${me.start}.`))
}

/** Removes the staging directories of dead writers in `dir`; returns how many it removed. */
export async function reclaimStaging(dir: string, listed?: string[]): Promise<number> {
  let names: string[]
  try {
    names = listed ?? await readdir(dir)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    const owner = parseStagingName(name)
    if (owner === undefined || !(await isDeadWriter(owner))) continue
    try {
      await rm(join(dir, name), { recursive: true, force: true })
      removed++
    } catch {}
  }
  return removed
}
