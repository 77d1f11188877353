import { readFileSync, readlinkSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { connect, createServer, type Server } from 'node:net'
import { errnoCode } from './errors'

/**
 * How one dsh process tells whether another is still alive, without trusting what it cannot see.
 *
 * A pid only means something inside its own PID namespace: two dsh processes in two containers
 * sharing one workspace see each other's pids as free or as someone else. So a pid (with the
 * process start time, which tells a reused pid apart) is evidence only between processes of one
 * boot and one PID namespace. Across namespaces the evidence is a listening Unix socket bound in
 * the shared directory: the kernel stops it from listening when its process dies, whatever
 * namespace that process was in, and a `connect` then fails with ECONNREFUSED. Anything that
 * cannot be proven dead is alive: leaking a directory is harmless, deleting a live writer's is not.
 */
export interface WriterIdentity {
  boot: string
  /** The PID namespace (`/proc/self/ns/pid` inode), or `x` when unknown. */
  ns: string
  pid: number
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or `x` when unknown. */
  start: string
}

/** Longest `sun_path` Linux accepts (108 bytes with the terminating NUL); macOS allows 104. */
export const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103

/**
 * How long a socket that refuses connections may still belong to a live process that bound it and
 * has not reached `listen` yet (two consecutive system calls), or a staging directory without its
 * socket to a writer between `mkdtemp` and `bind`. Only the shapes that leave that doubt wait for it.
 */
export const GRACE_MS = 10_000

function readBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replaceAll('-', '').slice(0, 8)
  } catch {
    return 'nobootid'
  }
}

function readPidNamespace(): string {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? 'x'
  } catch {
    return 'x'
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
    self = { boot: readBootId(), ns: readPidNamespace(), pid: process.pid, start }
  }
  return self
}

/** What the pid evidence says: only between processes of one boot and one PID namespace. */
export async function pidVerdict(owner: WriterIdentity): Promise<'dead' | 'alive' | 'unknown'> {
  const me = selfIdentity()
  // Another boot of this machine ended every process of it (one kernel per workspace is assumed).
  if (owner.boot !== me.boot) return owner.boot !== 'nobootid' && me.boot !== 'nobootid' ? 'dead' : 'unknown'
  if (owner.ns !== me.ns) return 'unknown'
  if (owner.pid === me.pid) return owner.start !== me.start && owner.start !== 'x' ? 'dead' : 'alive'
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    // ESRCH: no such process. EPERM means it exists but belongs to someone else: alive.
    return errnoCode(error) === 'ESRCH' ? 'dead' : 'alive'
  }
  if (owner.start === 'x') return 'alive'
  const start = await startTimeOf(owner.pid)
  return start !== undefined && start !== owner.start ? 'dead' : 'alive'
}

/** Whether the writer is certainly gone by the pid evidence alone (never across namespaces). */
export async function isDeadWriter(owner: WriterIdentity): Promise<boolean> {
  return (await pidVerdict(owner)) === 'dead'
}

/** A listening socket that exists exactly as long as this process holds it open. */
export interface Liveness {
  path: string
  /** Stops listening; Node unlinks the socket's path as it closes. Synchronous. */
  close(): void
}

/**
 * Binds and listens on `path` (synchronous: two system calls on the main thread), or returns
 * `undefined` where no socket can be bound there (path too long, a filesystem without sockets).
 * It keeps the umask's mode: another user's dsh may be refused a `connect` (`denied`), which proves
 * nothing; making it writable by all would cost two more system calls on every write.
 */
export function listenLiveness(path: string): Liveness | undefined {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return undefined
  const server: Server = createServer((socket) => socket.destroy())
  // A failed bind is reported asynchronously as well; `listening` already tells it synchronously.
  server.on('error', () => {})
  try {
    server.listen({ path })
  } catch {
    return undefined
  }
  if (!server.listening) {
    server.close()
    return undefined
  }
  server.unref()
  return { path, close: () => void server.close() }
}

/**
 * Connects to a liveness socket: `dead` only on ECONNREFUSED (nobody listens on that inode any
 * more), `gone` when the path no longer exists, `denied` when we may not connect (another user's
 * socket), `alive` when it answers or anything else happens.
 */
export function probeLiveness(path: string): Promise<'alive' | 'dead' | 'gone' | 'denied'> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return Promise.resolve('alive')
  return new Promise((resolve) => {
    const socket = connect({ path })
    const timer = setTimeout(() => finish('alive'), 2_000)
    function finish(verdict: 'alive' | 'dead' | 'gone' | 'denied') {
      clearTimeout(timer)
      socket.destroy()
      resolve(verdict)
    }
    socket.once('connect', () => finish('alive'))
    socket.once('error', (error) => {
      const code = errnoCode(error)
      finish(code === 'ECONNREFUSED' ? 'dead' : code === 'ENOENT' ? 'gone' : code === 'EACCES' || code === 'EPERM' ? 'denied' : 'alive')
    })
  })
}

let shared: string | undefined

/**
 * This process's long-lived liveness socket (its journal's), which staging directories on the same
 * filesystem hard-link instead of binding one each: a `link(2)` in the thread pool instead of a
 * bind, listen and close on the event loop thread for every write.
 */
export function sharedLiveness(): string | undefined {
  return shared
}

export function setSharedLiveness(path: string | undefined): void {
  shared = path
}
