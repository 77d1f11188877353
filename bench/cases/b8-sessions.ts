import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { bundle } from '../harness/bundle'
import { type CaseResult, fmtBytes } from '../harness/case'
import { config } from '../harness/config'
import { BENCH } from '../harness/paths'
import type { Scratch } from '../harness/scratch'

const TITLE = 'Memory per idle MCP session (Streamable HTTP)'
const BASELINE = 'the same server process with zero sessions, measured in the same run'
const TARGET = 'report the memory one idle session holds, and that it is released when the session ends'
const TOKEN = 'b8-bench-token-0123456789'

interface Memory {
  heapUsed: number
  rss: number
  external: number
  closed: number
}

/** The bundled child (`b8-sessions-child.ts`): the default stack over HTTP, measured on request. */
class Server {
  readonly #lines: AsyncIterator<string>

  private constructor(readonly child: ChildProcess, readonly url: string, lines: AsyncIterator<string>) {
    this.#lines = lines
  }

  static async start(script: string, dir: string, maxSessions?: number): Promise<Server> {
    const args = ['--expose-gc', script, dir, TOKEN, ...(maxSessions === undefined ? [] : [String(maxSessions)])]
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
    const first = await lines.next()
    if (first.done) throw new Error('the B8 server exited before listening')
    return new Server(child, (JSON.parse(first.value) as { url: string }).url, lines)
  }

  async measure(): Promise<Memory> {
    this.child.stdin!.write('measure\n')
    const line = await this.#lines.next()
    if (line.done) throw new Error('the B8 server exited')
    return JSON.parse(line.value) as Memory
  }

  async stop(): Promise<void> {
    this.child.stdin!.end()
    await new Promise((resolve) => this.child.once('close', resolve))
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 })

function post(url: string, headers: Record<string, string>, body: unknown, method = 'POST'): Promise<{ status: number; session?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      agent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...headers },
    }, (res) => {
      res.resume().once('end', () => resolve({ status: res.statusCode ?? 0, ...(typeof res.headers['mcp-session-id'] === 'string' ? { session: res.headers['mcp-session-id'] } : {}) }))
    })
    req.once('error', reject).end(body === undefined ? undefined : JSON.stringify(body))
  })
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b8', version: '0' } } }

/** One client as the four real ones behave: initialize, initialized, one `read`, then silence (no DELETE). */
async function openSession(url: string): Promise<string> {
  const opened = await post(url, {}, initialize)
  if (opened.status !== 200 || opened.session === undefined) throw new Error(`initialize answered ${opened.status}`)
  const headers = { 'mcp-session-id': opened.session, 'mcp-protocol-version': '2025-06-18' }
  await post(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' })
  const read = await post(url, headers, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read', arguments: { file_path: 'small.txt' } } })
  if (read.status !== 200) throw new Error(`read answered ${read.status}`)
  return opened.session
}

async function openMany(url: string, count: number): Promise<string[]> {
  const ids: string[] = []
  // A few clients at a time, like hosts reconnecting; order does not matter here.
  for (let at = 0; at < count; at += 8) ids.push(...await Promise.all(Array.from({ length: Math.min(8, count - at) }, () => openSession(url))))
  return ids
}

/**
 * Opens N sessions with real initialize requests (and one `read` each, so every session holds an
 * observation) against the default stack in a child process, then measures that child's heap and
 * RSS after full collections, against the same child at zero sessions. Then every session is ended
 * with DELETE and measured again (released?), and a second child with the default cap takes the
 * same N clients (bounded?).
 */
export async function runB8(scratch: Scratch): Promise<CaseResult> {
  const dir = await scratch.dir('b8')
  await writeFile(join(dir, 'small.txt'), 'one\ntwo\nthree\n')
  // dsh-mcp reads its version from `../package.json` relative to its module: give the bundle one.
  await mkdir(join(dir, 'child'))
  await writeFile(join(dir, 'package.json'), '{ "version": "0.0.0-bench" }\n')
  const script = join(dir, 'child', 'sessions-child.mjs')
  await bundle(join(BENCH, 'cases/b8-sessions-child.ts'), script)
  const n = config.b8.sessions

  const server = await Server.start(script, dir, n)
  let zero: Memory, full: Memory, released: Memory
  try {
    zero = await server.measure()
    const ids = await openMany(server.url, n)
    full = await server.measure()
    for (const id of ids) await post(server.url, { 'mcp-session-id': id }, undefined, 'DELETE')
    released = await server.measure()
  } finally {
    await server.stop()
  }

  const capped = await Server.start(script, dir)
  let cappedZero: Memory, cappedFull: Memory
  try {
    cappedZero = await capped.measure()
    await openMany(capped.url, n)
    cappedFull = await capped.measure()
  } finally {
    await capped.stop()
  }
  agent.destroy()

  const perSession = (after: Memory, field: 'heapUsed' | 'rss') => fmtBytes(Math.round((after[field] - zero[field]) / n))
  const delta = (after: Memory, before: Memory, field: 'heapUsed' | 'rss') => `${after[field] >= before[field] ? '+' : '−'}${fmtBytes(Math.abs(after[field] - before[field]))}`
  const heapPer = (full.heapUsed - zero.heapUsed) / n
  const cappedLive = n - cappedFull.closed
  return {
    id: 'B8', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `One child process on bare \`node --expose-gc\` (the default stack bundled from the workspace sources) serving Streamable HTTP; ${n} clients each send initialize, initialized and one \`read\`, then nothing. Heap and RSS after four full collections.`,
      header: ['state', 'live sessions', 'heap used', 'Δ heap', 'RSS', 'Δ RSS', 'per session (heap / RSS)'],
      rows: [
        ['zero sessions', '0', fmtBytes(zero.heapUsed), '', fmtBytes(zero.rss), '', ''],
        [`${n} idle sessions (\`maxSessions: ${n}\`)`, String(n - full.closed), fmtBytes(full.heapUsed), delta(full, zero, 'heapUsed'), fmtBytes(full.rss), delta(full, zero, 'rss'), `${perSession(full, 'heapUsed')} / ${perSession(full, 'rss')}`],
        [`after DELETE of all ${n}`, String(n - released.closed), fmtBytes(released.heapUsed), delta(released, zero, 'heapUsed'), fmtBytes(released.rss), delta(released, zero, 'rss'), ''],
        [`${n} clients against the default cap (64)`, String(cappedLive), fmtBytes(cappedFull.heapUsed), delta(cappedFull, cappedZero, 'heapUsed'), fmtBytes(cappedFull.rss), delta(cappedFull, cappedZero, 'rss'), ''],
      ],
    }],
    verdicts: [{
      target: TARGET,
      measured: `${fmtBytes(Math.round(heapPer))} of heap per idle session; after DELETE the heap is ${delta(released, zero, 'heapUsed')} from zero sessions; with the default cap ${cappedLive} of ${n} stay live`,
      met: null,
    }],
    notes: ['RSS does not shrink when the heap does (V8 keeps the pages it grew into); the heap figures are the ones that show release. Idle expiry (`sessionIdleSeconds`, 30 min by default) releases the same memory as DELETE: both close the session, and the `tests/http.spec.ts` tests check that the session object is collected.'],
  }
}
