import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ERROR_META_KEY } from '../src/index'

export const DSH_BIN = fileURLToPath(new URL('../../cli/bin/dsh.js', import.meta.url))
const PACKAGES = fileURLToPath(new URL('../../', import.meta.url))
const LOADED = ['fs', 'fs-local', 'fs-policy', 'tools', 'tool-fs', 'tool-str-replace-editor', 'mcp', 'cli']

/** A spawned `dsh` loads the built `lib/` of every package: say so plainly when it is missing. */
export function requireBuild(): void {
  const missing = LOADED.filter((dir) => !existsSync(join(PACKAGES, dir, 'lib', 'index.js')))
  if (missing.length > 0) throw new Error(`packages not built (${missing.join(', ')}): run pnpm build before these tests`)
}

export async function tempDir(): Promise<{ dir: string; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-mcp-e2e-')))
  return { dir, [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }) }
}

/** `dsh start` spawned by the official SDK client over stdio, as an MCP host would run it. */
export async function stdioClient(cwd: string, args: string[] = []): Promise<{ client: Client; stderr: () => string; errors: Error[] }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start', ...args], cwd, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const client = new Client({ name: 'dsh-e2e', version: '0.0.0' })
  const errors: Error[] = []
  client.onerror = (error) => errors.push(error)
  await client.connect(transport)
  return { client, stderr: () => stderr, errors }
}

export interface Outcome {
  ok: boolean
  code?: string
  text: string
}

/** A tools/call reduced to what the assertions need: success, the error code, the text. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
  const result = await client.callTool({ name, arguments: args })
  const text = (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n')
  const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code
  return { ok: result.isError !== true, ...(code === undefined ? {} : { code }), text }
}

/** `dsh start` as a plain child process (for HTTP): resolves with the URL it announces on stderr. */
export async function spawnHttp(cwd: string, config: string): Promise<{ child: ChildProcess; url: string; stderr: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [DSH_BIN, 'start', '--config', config], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      const match = /Streamable HTTP (http:\/\/\S+)/.exec(stderr)
      if (match) resolve(match[1]!)
    })
    void exit.then((code) => reject(new Error(`dsh exited with ${code} before serving:\n${stderr}`)))
  })
  return { child, url, stderr: () => stderr, exit }
}
