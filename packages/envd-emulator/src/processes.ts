import { spawn, type ChildProcess } from 'node:child_process'
import { stat } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { RpcError } from './connect.js'
import { resolveSandboxPath } from './paths.js'

/** `process.ProcessConfig` in proto3 JSON (`envs` is a map, so a plain object). */
export interface ProcessConfigJson {
  cmd?: string
  args?: string[]
  envs?: Record<string, string>
  cwd?: string
}

/** `process.ProcessSelector`: a oneof of pid and tag. */
export interface ProcessSelectorJson { pid?: number; tag?: string }

/** `process.ProcessEvent` in proto3 JSON: exactly one of its oneof cases is set. */
export type ProcessEventJson =
  | { start: { pid: number } }
  | { data: { stdout: string } | { stderr: string } }
  | { end: EndEventJson }
  | { keepalive: Record<string, never> }

/**
 * Told to listeners just before a process is killed at its deadline, so a stream can fail with
 * `deadline_exceeded` (as envd's does) rather than race the end event of the kill.
 */
export const DEADLINE = Symbol('deadline')

export type ProcessListener = (event: ProcessEventJson | typeof DEADLINE) => void

export interface EndEventJson { exitCode: number; exited: boolean; status: string; error?: string }

// Go's names for the signals a sandbox process commonly dies of ("signal: killed").
const SIGNAL_TEXT: Record<string, string> = {
  SIGKILL: 'killed', SIGTERM: 'terminated', SIGINT: 'interrupt', SIGHUP: 'hangup',
  SIGPIPE: 'broken pipe', SIGSEGV: 'segmentation fault', SIGABRT: 'aborted', SIGQUIT: 'quit',
}

/** What envd reports when a process ends: a signal gives exit code -1 and `exited: false`. */
function endEvent(code: number | null, signal: NodeJS.Signals | null): EndEventJson {
  if (code !== null) {
    const status = `exit status ${code}`
    return { exitCode: code, exited: true, status, ...(code === 0 ? {} : { error: status }) }
  }
  const status = `signal: ${SIGNAL_TEXT[signal ?? ''] ?? signal ?? 'unknown'}`
  return { exitCode: -1, exited: false, status, error: status }
}

/** One child process the emulator started, with its listeners (no replay for late ones). */
export class ManagedProcess {
  private readonly listeners = new Set<ProcessListener>()
  private finished = false
  private killRequested = false
  /** Resolves when the process has exited and its end event went out. */
  readonly done: Promise<void>

  constructor(readonly pid: number, readonly config: ProcessConfigJson, readonly tag: string | undefined,
    private readonly child: ChildProcess, onFinish: () => void) {
    let resolveDone!: () => void
    this.done = new Promise((resolve) => { resolveDone = resolve })
    const forward = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (!this.killRequested) this.emit({ data: stream === 'stdout' ? { stdout: chunk.toString('base64') } : { stderr: chunk.toString('base64') } })
    }
    child.stdout!.on('data', forward('stdout'))
    child.stderr!.on('data', forward('stderr'))
    child.stdin?.on('error', () => {}) // EPIPE after the process exits is not our failure
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.finished) return
      this.finished = true
      this.emit({ end: endEvent(code, signal) })
      this.listeners.clear()
      onFinish()
      resolveDone()
    }
    // Normally the end waits for the output pipes to drain ('close'); after a kill envd stops
    // reading output and reports as soon as the process itself is gone ('exit').
    child.on('close', finish)
    child.on('exit', (code, signal) => { if (this.killRequested) finish(code, signal) })
  }

  subscribe(listener: ProcessListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The call's deadline passed: warn the listeners, then kill the group. */
  expire(): void {
    this.emit(DEADLINE)
    this.signal('SIGKILL')
  }

  private emit(event: ProcessEventJson | typeof DEADLINE): void {
    for (const listener of [...this.listeners]) listener(event)
  }

  /** Signals the whole process group, so helpers a command spawned die with it. */
  signal(signal: 'SIGKILL' | 'SIGTERM'): void {
    this.killRequested = true
    try {
      process.kill(-this.pid, signal)
    } catch {
      this.child.kill(signal)
    }
  }

  writeStdin(data: Buffer): void {
    const stdin = this.child.stdin
    if (!stdin || stdin.destroyed || stdin.writableEnded) throw new RpcError('internal', 'error writing to stdin: stdin not enabled or closed')
    stdin.write(data)
  }

  closeStdin(): void {
    this.child.stdin?.end()
  }

  get running(): boolean {
    return !this.finished
  }
}

/** The processes of one emulator: spawned as `bash` would be by envd, killed on close. */
export class ProcessTable {
  private readonly processes = new Map<number, ManagedProcess>()

  constructor(private readonly home: string) {}

  /**
   * Spawns the command and resolves once it runs. `timeoutMs` is the call's deadline: like
   * envd, the process is killed when it passes, whether or not a client is still listening.
   */
  async start(config: ProcessConfigJson, opts: { stdin: boolean; tag?: string | undefined; timeoutMs?: number | undefined },
    listener: ProcessListener): Promise<ManagedProcess> {
    if (!config.cmd) throw new RpcError('invalid_argument', 'process.cmd is required')
    const cwd = resolveSandboxPath(config.cwd ?? '', this.home)
    if (!(await stat(cwd).catch(() => undefined))) throw new RpcError('invalid_argument', `cwd '${cwd}' does not exist`)
    const user = userInfo().username
    // envd passes only PATH from its own environment, then HOME/USER/LOGNAME, then the caller's envs.
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, USER: user, LOGNAME: user, ...config.envs }
    const child = spawn(config.cmd, config.args ?? [], {
      cwd, env, detached: true, stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    })
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve)
      child.once('error', (error) => reject(new RpcError('invalid_argument', `error starting process '${config.cmd}': ${error.message}`)))
    })
    const pid = child.pid!
    let timer: NodeJS.Timeout | undefined
    const proc = new ManagedProcess(pid, config, opts.tag, child, () => {
      clearTimeout(timer)
      this.processes.delete(pid)
    })
    proc.subscribe(listener)
    this.processes.set(pid, proc)
    if (opts.timeoutMs) timer = setTimeout(() => proc.expire(), opts.timeoutMs)
    return proc
  }

  get(selector: ProcessSelectorJson | undefined): ManagedProcess {
    if (selector?.pid !== undefined) {
      const proc = this.processes.get(selector.pid)
      if (!proc) throw new RpcError('not_found', `process with pid ${selector.pid} not found`)
      return proc
    }
    if (selector?.tag !== undefined) {
      for (const proc of this.processes.values()) if (proc.tag === selector.tag) return proc
      throw new RpcError('not_found', `process with tag ${selector.tag} not found`)
    }
    throw new RpcError('unimplemented', 'process selector needs a pid or a tag')
  }

  list(): ManagedProcess[] {
    return [...this.processes.values()]
  }

  /**
   * SIGKILLs every process group still running and waits until each leader has been reaped and
   * its group has emptied (bounded: a reparented zombie nobody reaps must not hang close()).
   */
  async killAll(): Promise<void> {
    const running = this.list()
    for (const proc of running) proc.signal('SIGKILL')
    await Promise.all(running.map((proc) => proc.done))
    for (let tries = 0; tries < 50 && running.some((proc) => groupExists(proc.pid)); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}
