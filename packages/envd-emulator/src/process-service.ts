import { RpcError, type ServerStream } from './connect.js'
import { DEADLINE, type ProcessConfigJson, type ProcessEventJson, type ProcessSelectorJson, type ProcessTable } from './processes.js'

interface StartRequest { process?: ProcessConfigJson; pty?: unknown; tag?: string; stdin?: boolean }
interface SelectorRequest { process?: ProcessSelectorJson }
interface SendInputRequest extends SelectorRequest { input?: { stdin?: string; pty?: string } }
interface SendSignalRequest extends SelectorRequest { signal?: string | number }

/** What a streaming handler learns about its call. */
export interface StreamCall {
  /** The `Connect-Timeout-Ms` deadline, if any. */
  deadlineMs: number | undefined
  /** Seconds between keepalive events the client asked for (`Keepalive-Ping-Interval`). */
  keepaliveSeconds: number | undefined
}

/**
 * `process.Process` over the process table. Start and Connect stream `start`, then `data`,
 * then `end` events; the deadline kills the process and fails the stream with
 * `deadline_exceeded`, while a client that merely disconnects leaves the process running.
 */
export class ProcessService {
  constructor(private readonly table: ProcessTable) {}

  async start(req: StartRequest, stream: ServerStream, call: StreamCall): Promise<void> {
    if (req.pty !== undefined) throw new RpcError('unimplemented', 'the emulator does not provide PTYs')
    const relay = new Relay(stream, call, true)
    const proc = await this.table.start(req.process ?? {}, {
      // Unset `stdin` means a pipe (older clients); the SDK sends `false` unless asked.
      stdin: req.stdin !== false, tag: req.tag, timeoutMs: call.deadlineMs,
    }, relay.push)
    relay.begin(proc.pid)
    await relay.finished
  }

  async connect(req: SelectorRequest, stream: ServerStream, call: StreamCall): Promise<void> {
    const proc = this.table.get(req.process)
    const relay = new Relay(stream, call, false)
    const unsubscribe = proc.subscribe(relay.push)
    relay.begin(proc.pid)
    await relay.finished
    unsubscribe()
  }

  list(): { processes: { config: ProcessConfigJson; pid: number; tag?: string }[] } {
    return {
      processes: this.table.list().map((proc) => ({ config: proc.config, pid: proc.pid, ...(proc.tag === undefined ? {} : { tag: proc.tag }) })),
    }
  }

  sendSignal(req: SendSignalRequest): Record<string, never> {
    const proc = this.table.get(req.process)
    const signal = req.signal === 'SIGNAL_SIGKILL' || req.signal === 9 ? 'SIGKILL'
      : req.signal === 'SIGNAL_SIGTERM' || req.signal === 15 ? 'SIGTERM' : undefined
    if (!signal) throw new RpcError('unimplemented', `invalid signal: ${String(req.signal)}`)
    proc.signal(signal)
    return {}
  }

  sendInput(req: SendInputRequest): Record<string, never> {
    const proc = this.table.get(req.process)
    if (req.input?.pty !== undefined) throw new RpcError('internal', 'error writing to tty: no tty assigned to process')
    if (req.input?.stdin === undefined) throw new RpcError('unimplemented', 'invalid input type')
    proc.writeStdin(Buffer.from(req.input.stdin, 'base64'))
    return {}
  }

  closeStdin(req: SelectorRequest): Record<string, never> {
    this.table.get(req.process).closeStdin()
    return {}
  }
}

/**
 * Carries one process's events onto one stream: holds early output until the `start` event
 * is out, sends keepalives when asked, and ends the stream after `end` or at the deadline.
 */
class Relay {
  private readonly backlog: (ProcessEventJson | typeof DEADLINE)[] = []
  private started = false
  private settle!: () => void
  readonly finished = new Promise<void>((resolve) => { this.settle = resolve })
  private readonly timers: NodeJS.Timeout[] = []

  /** `startedIt`: this stream started the process, so the process's deadline is its own. */
  constructor(private readonly stream: ServerStream, call: StreamCall, private readonly startedIt: boolean) {
    stream.onClose(() => this.close())
    if (call.deadlineMs) {
      this.timers.push(setTimeout(() => this.close(new RpcError('deadline_exceeded', 'context deadline exceeded')), call.deadlineMs))
    }
    if (call.keepaliveSeconds) {
      const keepalive = setInterval(() => this.stream.send({ event: { keepalive: {} } }), call.keepaliveSeconds * 1000)
      this.timers.push(keepalive)
    }
  }

  readonly push = (event: ProcessEventJson | typeof DEADLINE): void => {
    if (!this.started) {
      this.backlog.push(event)
      return
    }
    if (event === DEADLINE) {
      if (this.startedIt) this.close(new RpcError('deadline_exceeded', 'context deadline exceeded'))
      return
    }
    this.stream.send({ event })
    if ('end' in event) this.close()
  }

  begin(pid: number): void {
    this.stream.send({ event: { start: { pid } } })
    this.started = true
    for (const event of this.backlog.splice(0)) this.push(event)
    if (!this.stream.open) this.close()
  }

  private close(error?: RpcError): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.stream.end(error)
    this.settle()
  }
}
