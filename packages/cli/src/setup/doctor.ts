import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { isAbsolute, relative, resolve } from 'node:path'
import { CLIENTS } from '../arguments'
import { within } from '../boot'
import { McpLines } from '../mcp-lines'
import { version } from '../version'
import { CLIENT_CONFIGS, type Reach } from './clients'
import { clientEnv, which } from './command'

const PROBE_MS = 10_000

interface Verdict { ok: boolean; lines: string[] }

/**
 * `dsh doctor`: for each client whose config names dsh, whether that client will reach it: the
 * config is found, the command resolves (stdio) or the token variable is set (HTTP), and the
 * server, started or called exactly as the client would, answers `tools/list`. Exit 0 when every
 * configured client will; 1 when one will not, or none is configured.
 */
export async function doctor(out: (text: string) => void = (text) => process.stdout.write(text), cwd = process.cwd()): Promise<number> {
  const place = { cwd, home: homedir(), env: process.env, command: [] }
  const shown = (file: string) => file.startsWith(`${cwd}/`) ? relative(cwd, file) : file
  let found = 0
  let failed = 0
  for (const name of CLIENTS) {
    const client = CLIENT_CONFIGS[name]
    for (const file of client.files(place)) {
      const text = await readFile(file, 'utf8').catch(() => undefined)
      if (text === undefined) continue
      let read
      try {
        read = client.read(file, text)
      } catch (error) {
        failed++
        out(`✗ ${name}: ${shown(file)} cannot be parsed: ${(error as Error).message.split('\n')[0]}\n`)
        continue
      }
      if (read === undefined) continue
      found++
      const verdict = await check(read.reach, cwd)
      const ok = verdict.ok && read.problems.length === 0
      if (!ok) failed++
      out(`${ok ? '✓' : '✗'} ${name}: ${shown(file)}\n`)
      for (const line of [...verdict.lines, ...read.problems.map((problem) => `✗ ${problem}`)]) out(`    ${line}\n`)
    }
  }
  if (found === 0) {
    out(`No client config in ${cwd} or your home names dsh. Run dsh setup <client> (${CLIENTS.join(', ')}).\n`)
    return 1
  }
  out(failed === 0 ? `Every configured client will reach dsh ${version}.\n` : `${failed} client config(s) will not reach dsh; fix what is marked ✗ (dsh setup <client> rewrites the entry).\n`)
  return failed === 0 ? 0 : 1
}

async function check(reach: Reach, cwd: string): Promise<Verdict> {
  return reach.kind === 'stdio' ? checkStdio(reach, cwd) : checkHttp(reach)
}

async function checkStdio(reach: Extract<Reach, { kind: 'stdio' }>, cwd: string): Promise<Verdict> {
  const [command, ...args] = reach.argv
  const lines: string[] = [`stdio: ${reach.argv.join(' ')}`]
  if (command === undefined) return { ok: false, lines: [...lines, '✗ no command'] }
  const resolved = which(command, clientEnv())
  if (resolved === undefined) return { ok: false, lines: [...lines, `✗ ${command} is not found on PATH (nor as a file; a project's node_modules/.bin, which npx adds, is not on a client's PATH)`] }
  lines.push(`✓ ${command} resolves to ${resolved}`)
  const missing = args.filter((arg) => isAbsolute(arg) && /\.(m?js|ya?ml)$/.test(arg) && !existsSync(arg))
  if (missing.length > 0) return { ok: false, lines: [...lines, `✗ ${missing.join(', ')} does not exist (moved or uninstalled?)`] }
  if (command === 'npx') lines.push('! npx starts a second Node before dsh and, where dsh is not installed, fetches another package: dsh setup writes a direct command')
  const began = performance.now()
  const child = spawn(resolved, args, { cwd: reach.cwd === undefined ? cwd : resolve(cwd, reach.cwd), stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr = (stderr + text).slice(-2000) })
  const exited = new Promise<string>((done) => {
    child.once('error', (error) => done(`✗ cannot start it: ${error.message}`))
    child.once('exit', (code) => done(`✗ it exited (status ${code}) before answering tools/list${stderr === '' ? '' : `:\n${stderr.trimEnd().split('\n').map((line) => `      ${line}`).join('\n')}`}`))
  })
  try {
    const client = new McpLines(child.stdout, child.stdin)
    const listed = (async () => {
      const init = await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dsh-doctor', version } })
      if (init.error !== undefined) return `✗ initialize failed: ${init.error.message}`
      client.notify('notifications/initialized')
      const list = await client.request('tools/list')
      if (list.error !== undefined) return `✗ tools/list failed: ${list.error.message}`
      const names = (list.result.tools as Array<{ name: string }>).map((tool) => tool.name)
      return `✓ answers tools/list in ${Math.round(performance.now() - began)} ms: ${names.join(', ')}`
    })()
    const answer = await within(Promise.race([listed, exited]), PROBE_MS) ?? `✗ no answer to tools/list within ${PROBE_MS / 1000} s`
    return { ok: answer.startsWith('✓'), lines: [...lines, answer] }
  } finally {
    child.stdin.end()
    child.kill('SIGTERM')
  }
}

async function checkHttp(reach: Extract<Reach, { kind: 'http' }>): Promise<Verdict> {
  const lines: string[] = [`Streamable HTTP: ${reach.url}`]
  if (reach.tokenFrom !== undefined) {
    if (!process.env[reach.tokenFrom]) return { ok: false, lines: [...lines, `✗ ${reach.tokenFrom} is not set here: the client would send no token (set it in the client's environment and in dsh's)`] }
    lines.push(`✓ the token comes from ${reach.tokenFrom}, which is set`)
  }
  const post = async (body: Record<string, unknown>, session?: string) => {
    const response = await fetch(reach.url, {
      method: 'POST',
      headers: { ...reach.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session === undefined ? {} : { 'mcp-session-id': session }) },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
      signal: AbortSignal.timeout(PROBE_MS),
    })
    const text = await response.text()
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text
    return { status: response.status, session: response.headers.get('mcp-session-id') ?? session, message: data === '' ? undefined : JSON.parse(data) as Record<string, any> }
  }
  try {
    const init = await post({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dsh-doctor', version } } })
    if (init.status === 401) return { ok: false, lines: [...lines, `✗ refused with 401: the token ${reach.tokenFrom === undefined ? 'the client sends' : `in ${reach.tokenFrom}`} is not the one dsh was started with`] }
    if (init.status !== 200) return { ok: false, lines: [...lines, `✗ initialize answered HTTP ${init.status}: ${JSON.stringify(init.message?.error?.message ?? '')}`] }
    await post({ method: 'notifications/initialized' }, init.session ?? undefined)
    const list = await post({ id: 2, method: 'tools/list' }, init.session ?? undefined)
    const names = (list.message?.result?.tools as Array<{ name: string }> | undefined)?.map((tool) => tool.name)
    if (names === undefined) return { ok: false, lines: [...lines, `✗ tools/list answered HTTP ${list.status} without tools`] }
    if (init.session) await fetch(reach.url, { method: 'DELETE', headers: { ...reach.headers, 'mcp-session-id': init.session } }).catch(() => {})
    return { ok: true, lines: [...lines, `✓ answers tools/list: ${names.join(', ')}`] }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code
    return { ok: false, lines: [...lines, cause === 'ECONNREFUSED' ? `✗ nothing listens at ${reach.url}: start dsh there first (dsh start --config cordis.http.yml)` : `✗ ${(error as Error).message}`] }
  }
}
