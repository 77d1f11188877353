import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Whether a binary is on PATH: tests that need a real server skip, visibly, only when it is truly absent. */
export function hasBinary(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** A free loopback port (bound then released: the server started next takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Spawns a server and resolves once a line of its output matches `ready`; rejects if it exits first. */
function spawnUntil(command: string, args: string[], ready: RegExp, cwd: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      if (ready.test(output)) {
        child.stdout!.off('data', onData)
        child.stderr!.off('data', onData)
        child.stdout!.resume()
        child.stderr!.resume()
        resolve(child)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before it was ready:\n${output}`)))
    child.once('error', reject)
  })
}

function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill(signal)
  })
}

export interface RedisServer {
  port: number
  /** `redis://127.0.0.1:<port>`; append `/<db>` for another database. */
  url: string
  /** Stops the server (SIGKILL: gone at once, like a crash). */
  kill(): Promise<void>
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>
  /** Freezes the server (SIGSTOP): connections stay open and nothing is answered, as a hung host. `resume` (SIGCONT) undoes it. */
  pause(): void
  resume(): void
  [Symbol.asyncDispose](): Promise<void>
}

/** A real redis-server on a loopback port, no persistence, in its own temporary directory. */
export async function startRedis(): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-redis-'))
  const port = await freePort()
  const start = () => spawnUntil('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    /Ready to accept connections/, dir)
  let child: ChildProcess | undefined = await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      await stopChild(child, 'SIGKILL')
      child = undefined
    },
    async restart() {
      await stopChild(child, 'SIGKILL')
      child = await start()
    },
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async [Symbol.asyncDispose]() {
      child?.kill('SIGCONT')
      await stopChild(child, 'SIGKILL')
      await rm(dir, { recursive: true, force: true })
    },
  }
}

export interface HaproxyServer {
  port: number
  [Symbol.asyncDispose](): Promise<void>
}

/**
 * HAProxy on a loopback port, round-robin over `backends` with no stickiness. A backend that
 * refuses connections (a killed replica) is skipped: the request is dispatched to the next one.
 */
export async function startHaproxy(backends: number[]): Promise<HaproxyServer> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-haproxy-'))
  const port = await freePort()
  await writeFile(join(dir, 'haproxy.cfg'), haproxyConfig(port, backends))
  const child = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout.resume()
  let output = ''
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  // Ready once the frontend accepts connections.
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}):\n${output}`)
    if (await accepts(port)) break
    if (attempt > 200) throw new Error(`haproxy did not listen on ${port}:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return {
    port,
    async [Symbol.asyncDispose]() {
      await stopChild(child, 'SIGKILL')
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** The config: round-robin with no stickiness, a refused connection retried on the next backend. */
function haproxyConfig(port: number, backends: readonly number[]): string {
  return [
    'global',
    '  maxconn 1024',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    'frontend replicas',
    `  bind 127.0.0.1:${port}`,
    '  default_backend dsh',
    'backend dsh',
    '  balance roundrobin',
    '  http-response set-header x-dsh-replica %s',
    ...backends.map((backend, index) => `  server r${index} 127.0.0.1:${backend}`),
    '',
  ].join('\n')
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}
