import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseArguments } from '../src/arguments'
import { DSH_BIN, requireBuild, runDsh, startDsh, tempDir } from './dsh-process'

// Every client block of docs/cli.md is exactly what `dsh setup` writes for that client (over stdio
// and with --http), and works as the client would use it: the command starts dsh, the URL is where
// the documented HTTP config serves, the token comes from DSH_MCP_TOKEN the way that client expands
// it, and the client's own setting (permissions, approval, trust) is there.

vi.setConfig({ testTimeout: 60_000 })

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const HTTP_EXAMPLE = join(ROOT, 'docs/examples/cordis.http.yml')
const BIN_NAMES = Object.keys((JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> }).bin)
// The file tools must be there; the list may grow (a test pins presence, not the exact list).
const TOOLS = ['edit', 'read', 'str_replace_editor', 'write']
const TOKEN_ENV = 'DSH_MCP_TOKEN'
const token = randomBytes(24).toString('hex')

interface Block { lang: string; text: string; value: Record<string, any> }
interface ServerEntry { argv?: string[]; url?: string; entry: Record<string, any> }

/** The `### client` subsections of "Adding dsh to an MCP client" and their parsed JSON/TOML blocks. */
async function setupBlocks(): Promise<Map<string, Block[]>> {
  const doc = await readFile(join(ROOT, 'docs/cli.md'), 'utf8')
  const start = doc.indexOf('## Adding dsh to an MCP client')
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1))
  const clients = new Map<string, Block[]>()
  for (const part of section.split(/^### /m).slice(1)) {
    const name = part.slice(0, part.indexOf('\n'))
    const blocks = [...part.matchAll(/^```(json|toml)\n([\s\S]*?)^```$/gm)].map(([, lang, text]) => ({
      lang: lang!, text: text!, value: (lang === 'toml' ? parseToml(text!) : JSON.parse(text!)) as Record<string, any>,
    }))
    clients.set(name, blocks)
  }
  return clients
}

/** The `dsh` server entry of a client config, wherever that client keeps it; undefined for other settings. */
function serverEntry(value: Record<string, any>): ServerEntry | undefined {
  const entry = value.mcpServers?.dsh ?? value.mcp_servers?.dsh ?? value.mcp?.dsh
  if (entry === undefined) return undefined
  const argv = Array.isArray(entry.command) ? entry.command : typeof entry.command === 'string' ? [entry.command, ...(entry.args ?? [])] : undefined
  return { argv, url: entry.url ?? entry.httpUrl, entry }
}

/** The headers this client sends, its own way of reading the environment applied. */
function headersOf(client: string, entry: Record<string, any>): Record<string, string> {
  const env: Record<string, string> = { [TOKEN_ENV]: token }
  if (client === 'Codex') return entry.bearer_token_env_var === undefined ? {} : { Authorization: `Bearer ${env[entry.bearer_token_env_var]}` }
  // Claude Code and Gemini CLI expand ${VAR} in their config files, opencode {env:VAR}.
  const expand = (value: string) => client === 'opencode'
    ? value.replace(/\{env:(\w+)\}/g, (_, name: string) => env[name] ?? '')
    : value.replace(/\$\{(\w+)\}/g, (_, name: string) => env[name] ?? '')
  return Object.fromEntries(Object.entries((entry.headers ?? {}) as Record<string, string>).map(([key, value]) => [key, expand(value)]))
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort()
}

/** Runs what the block names: `dsh …` is the globally installed bin, so this checkout's bin with the same arguments. */
async function listOverStdio(argv: string[], cwd: string): Promise<string[]> {
  expect(BIN_NAMES).toContain(argv[0])
  const client = new Client({ name: 'docs-check', version: '0.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, ...argv.slice(1)], cwd, stderr: 'ignore' }))
  try {
    return await toolNames(client)
  } finally {
    await client.close()
  }
}

const CLIENT_IDS: Record<string, string> = { 'Claude Code': 'claude-code', Codex: 'codex', 'Gemini CLI': 'gemini-cli', opencode: 'opencode' }

/** The parsed files `dsh setup <client> [--http]` writes, run with this checkout's dsh on PATH (a global install). */
async function written(client: string, http: boolean): Promise<Record<string, any>[]> {
  const base = join(temp.dir, `${client}${http ? '-http' : ''}`)
  const project = join(base, 'project')
  const home = join(base, 'home')
  await mkdir(project, { recursive: true })
  await mkdir(home, { recursive: true })
  const run = await runDsh(['setup', client, ...(http ? ['--http'] : [])], project, 60_000, { ...process.env, HOME: home, CODEX_HOME: '', PATH: `${pathDir}:${process.env.PATH}` })
  expect(run.code, run.stderr).toBe(0)
  const files = [...run.stdout.matchAll(/^created (\S+)/gm)].map(([, file]) => file!.startsWith('/') ? file! : join(project, file!))
  expect(files.length).toBeGreaterThan(0)
  return Promise.all(files.map(async (file) => {
    const text = await readFile(file, 'utf8')
    return (file.endsWith('.toml') ? parseToml(text) : JSON.parse(text)) as Record<string, any>
  }))
}

const canonical = (value: unknown): string => JSON.stringify(value, (_key, item: unknown) =>
  item !== null && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))) : item)

let clients: Map<string, Block[]>
let pathDir: string
let temp: Awaited<ReturnType<typeof tempDir>>
let http: Awaited<ReturnType<typeof startDsh>>
let documentedUrl: string
let servedUrl: URL

beforeAll(async () => {
  requireBuild()
  clients = await setupBlocks()
  temp = await tempDir()
  pathDir = join(temp.dir, 'bin')
  await mkdir(pathDir)
  await symlink(DSH_BIN, join(pathDir, BIN_NAMES[0]!))
  // The documented HTTP config, on a free port: the URL in the blocks must match the config's own.
  const example = await readFile(HTTP_EXAMPLE, 'utf8')
  const field = (key: string) => new RegExp(`^ {4}${key}: (\\S+)$`, 'm').exec(example)?.[1]
  documentedUrl = `http://${field('host')}:${field('port')}${field('path')}`
  const config = join(temp.dir, 'cordis.http.yml')
  await writeFile(config, example.replace(/^ {4}port: \d+$/m, '    port: 0'))
  http = await startDsh(['--config', config], temp.dir, { ...process.env, [TOKEN_ENV]: token })
  servedUrl = new URL(/^  transport  Streamable HTTP (\S+)$/m.exec(http.stderr())![1]!)
})

afterAll(async () => {
  http?.child.kill('SIGTERM')
  await http?.done
  await temp?.[Symbol.asyncDispose]()
})

describe('docs/cli.md, one setup block per client and transport', () => {
  it('covers Claude Code, Codex, Gemini CLI and opencode, each with a stdio and a Streamable HTTP server block', () => {
    for (const name of ['Claude Code', 'Codex', 'Gemini CLI', 'opencode']) {
      const servers = (clients.get(name) ?? []).map((block) => serverEntry(block.value)).filter((entry) => entry !== undefined)
      expect(servers.filter((server) => server.argv !== undefined).length, `${name} stdio`).toBe(1)
      expect(servers.filter((server) => server.url !== undefined).length, `${name} http`).toBe(1)
    }
  })

  for (const [name, id] of Object.entries(CLIENT_IDS)) {
    it(`${name}: the blocks are exactly the files dsh setup ${id} writes, over stdio and with --http`, async () => {
      const documented = new Set(clients.get(name)!.map((block) => canonical(block.value)))
      const files = new Set([...await written(id, false), ...await written(id, true)].map(canonical))
      expect([...documented].sort()).toEqual([...files].sort())
    })
  }

  for (const name of Object.keys(CLIENT_IDS)) {
    it(`${name}: the stdio block starts dsh, the HTTP block reaches the documented endpoint, both list the tools`, async () => {
      const servers = clients.get(name)!.map((block) => serverEntry(block.value)).filter((entry) => entry !== undefined)
      const stdio = servers.find((server) => server.argv !== undefined)!
      expect(await listOverStdio(stdio.argv!, temp.dir)).toEqual(expect.arrayContaining(TOOLS))

      const remote = servers.find((server) => server.url !== undefined)!
      expect(remote.url).toBe(documentedUrl)
      expect(new URL(remote.url!).pathname).toBe(servedUrl.pathname)
      const client = new Client({ name: 'docs-check', version: '0.0.0' })
      await client.connect(new StreamableHTTPClientTransport(servedUrl, { requestInit: { headers: headersOf(name, remote.entry) } }))
      try {
        expect(await toolNames(client)).toEqual(expect.arrayContaining(TOOLS))
      } finally {
        await client.close()
      }
    })
  }

  it('the documented HTTP config refuses a client without the token (what the headers above are for)', async () => {
    const client = new Client({ name: 'docs-check', version: '0.0.0' })
    await expect(client.connect(new StreamableHTTPClientTransport(servedUrl))).rejects.toThrow(/401|Unauthorized|token/i)
  })

  it('Claude Code: the settings block allows every dsh tool (rule mcp__dsh, the name Claude Code gives them) and the project server', () => {
    const settings = clients.get('Claude Code')!.map((block) => block.value).find((value) => value.permissions !== undefined)
    expect(settings?.permissions.allow).toContain('mcp__dsh')
    expect(settings?.enabledMcpjsonServers).toContain('dsh')
  })

  it('Codex: both blocks approve the tools without a prompt and require the server, so codex exec neither cancels the writers nor runs without dsh', () => {
    for (const { entry } of clients.get('Codex')!.map((block) => serverEntry(block.value)!)) {
      expect(entry.default_tools_approval_mode).toBe('approve')
      expect(entry.required).toBe(true)
    }
  })

  it('Gemini CLI: both blocks trust the server, so no call waits for a confirmation', () => {
    for (const { entry } of clients.get('Gemini CLI')!.map((block) => serverEntry(block.value)!)) {
      expect(entry.trust).toBe(true)
    }
  })

  it('opencode: a local entry for stdio and a remote one for HTTP that never starts OAuth', () => {
    const entries = clients.get('opencode')!.map((block) => serverEntry(block.value)!.entry)
    expect(entries.map((entry) => entry.type).sort()).toEqual(['local', 'remote'])
    expect(entries.find((entry) => entry.type === 'remote')?.oauth).toBe(false)
  })

  it('every shell line of the section is a valid dsh setup or dsh doctor command', async () => {
    const doc = await readFile(join(ROOT, 'docs/cli.md'), 'utf8')
    const start = doc.indexOf('## Adding dsh to an MCP client')
    const section = doc.slice(start, doc.indexOf('\n## ', start + 1))
    const lines = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap(([, text]) => text!.split('\n')).map((line) => line.replace(/#.*$/, '').trim()).filter((line) => line !== '')
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) {
      const [command, ...args] = line.split(/\s+/)
      expect(command).toBe('dsh')
      expect(['setup', 'doctor']).toContain(parseArguments(args).command)
    }
  })
})
