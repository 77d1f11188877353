import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DSH_BIN, requireBuild, startDsh, tempDir } from './dsh-process'

// Every client setup block of docs/cli.md, parsed as the client would parse it: the command it
// names must start dsh, the URL must be where the documented HTTP config serves, the token must
// come from DSH_MCP_TOKEN the way that client expands it, and the client's own setting
// (permissions, approval, trust) must be there.

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
  const entry = value.mcpServers?.dsh ?? value.mcp_servers?.dsh ?? value.mcp?.servers?.dsh
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

/** Runs what the block names: `npx dsh …` is the installed bin, so this checkout's bin with the same arguments. */
async function listOverStdio(argv: string[], cwd: string): Promise<string[]> {
  expect(argv[0]).toBe('npx')
  expect(BIN_NAMES).toContain(argv[1])
  const client = new Client({ name: 'docs-check', version: '0.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, ...argv.slice(2)], cwd, stderr: 'ignore' }))
  try {
    return await toolNames(client)
  } finally {
    await client.close()
  }
}

let clients: Map<string, Block[]>
let temp: Awaited<ReturnType<typeof tempDir>>
let http: Awaited<ReturnType<typeof startDsh>>
let documentedUrl: string
let servedUrl: URL

beforeAll(async () => {
  requireBuild()
  clients = await setupBlocks()
  temp = await tempDir()
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

  for (const name of ['Claude Code', 'Codex', 'Gemini CLI', 'opencode']) {
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

  it('Claude Code: the settings block allows every dsh tool (rule mcp__dsh), the name Claude Code gives them', () => {
    const settings = clients.get('Claude Code')!.map((block) => block.value).find((value) => value.permissions !== undefined)
    expect(settings?.permissions.allow).toContain('mcp__dsh')
  })

  it('Codex: both blocks approve the tools without a prompt, so codex exec does not cancel the writers', () => {
    for (const { entry } of clients.get('Codex')!.map((block) => serverEntry(block.value)!)) {
      expect(entry.default_tools_approval_mode).toBe('approve')
    }
  })

  it('Gemini CLI: both blocks trust the server, so no call waits for a confirmation', () => {
    for (const { entry } of clients.get('Gemini CLI')!.map((block) => serverEntry(block.value)!)) {
      expect(entry.trust).toBe(true)
    }
  })

  it('opencode: a local entry for stdio and a remote one for HTTP', () => {
    const types = clients.get('opencode')!.map((block) => serverEntry(block.value)!.entry.type).sort()
    expect(types).toEqual(['local', 'remote'])
  })
})
