import { randomBytes } from 'node:crypto'
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DSH_BIN, requireBuild, runDsh, startDsh, tempDir } from './dsh-process'

// `dsh setup <client>` and `dsh doctor`, run as commands in a scratch project with a scratch HOME.

vi.setConfig({ testTimeout: 120_000 })

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const CLIENTS = ['claude-code', 'codex', 'gemini-cli', 'opencode'] as const
/** The files each client's setup writes, relative to the project (p/) or the home (h/). */
const FILES: Record<typeof CLIENTS[number], string[]> = {
  'claude-code': ['p/.mcp.json', 'p/.claude/settings.json'],
  codex: ['h/.codex/config.toml'],
  'gemini-cli': ['p/.gemini/settings.json'],
  opencode: ['p/opencode.json'],
}

interface Scratch { project: string; home: string; env: NodeJS.ProcessEnv; path(file: string): string }

async function scratch(root: string, name: string, env: NodeJS.ProcessEnv = {}): Promise<Scratch> {
  const project = join(root, name, 'project')
  const home = join(root, name, 'home')
  await mkdir(project, { recursive: true })
  await mkdir(home, { recursive: true })
  const base = { ...process.env, HOME: home, CODEX_HOME: '', ...env }
  return { project, home, env: base, path: (file) => join(file.startsWith('h/') ? home : project, file.slice(2)) }
}

const dsh = (s: Scratch, args: string[], env: NodeJS.ProcessEnv = {}) => runDsh(args, s.project, 60_000, { ...s.env, ...env })
const json = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, any>

let temp: Awaited<ReturnType<typeof tempDir>>

beforeAll(async () => {
  requireBuild()
  temp = await tempDir()
})

afterAll(async () => {
  await temp?.[Symbol.asyncDispose]()
})

describe('dsh setup <client>', () => {
  for (const client of CLIENTS) {
    it(`${client}: writes its files, says so, and a second run changes nothing`, async () => {
      const s = await scratch(temp.dir, `idempotent-${client}`)
      const first = await dsh(s, ['setup', client])
      expect(first.code, first.stderr).toBe(0)
      for (const file of FILES[client]) expect(first.stdout).toContain(`created ${file.startsWith('p/') ? file.slice(2) : s.path(file)}`)
      const written = await Promise.all(FILES[client].map((file) => readFile(s.path(file), 'utf8')))
      const second = await dsh(s, ['setup', client])
      expect(second.code).toBe(0)
      expect(second.stdout).not.toMatch(/^(created|updated) /m)
      expect(second.stdout.match(/^unchanged /gm)).toHaveLength(FILES[client].length)
      expect(await Promise.all(FILES[client].map((file) => readFile(s.path(file), 'utf8')))).toEqual(written)
    })
  }

  it('--dry-run prints the files it would write and writes none', async () => {
    const s = await scratch(temp.dir, 'dry-run')
    const run = await dsh(s, ['setup', 'codex', '--http', '--dry-run'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`would create ${s.path('h/.codex/config.toml')}`)
    expect(run.stdout).toContain('bearer_token_env_var = "DSH_MCP_TOKEN"')
    expect(run.stdout).toContain('dry run: nothing was written')
    await expect(stat(s.path('h/.codex/config.toml'))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('codex: keeps the comments and other tables of config.toml, and replaces only [mcp_servers.dsh]', async () => {
    const s = await scratch(temp.dir, 'codex-keep')
    const before = '# my settings\nmodel = "o4"\n\n[mcp_servers.dsh]\ncommand = "npx"\nargs = ["dsh", "start"]\n\n# the docs server\n[mcp_servers.docs]\ncommand = "docs-server"\n'
    await mkdir(join(s.home, '.codex'))
    await writeFile(s.path('h/.codex/config.toml'), before, { mode: 0o600 })
    const run = await dsh(s, ['setup', 'codex'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('updated ')
    const after = await readFile(s.path('h/.codex/config.toml'), 'utf8')
    expect(after.startsWith('# my settings\nmodel = "o4"\n\n[mcp_servers.dsh]\n')).toBe(true)
    expect(after.endsWith('\n\n# the docs server\n[mcp_servers.docs]\ncommand = "docs-server"\n')).toBe(true)
    const parsed = parseToml(after) as Record<string, any>
    expect(parsed.mcp_servers.dsh).toEqual({ command: process.execPath, args: [DSH_BIN, 'start'], required: true, default_tools_approval_mode: 'approve' })
    expect(parsed.mcp_servers.docs).toEqual({ command: 'docs-server' })
    expect((await stat(s.path('h/.codex/config.toml'))).mode & 0o777).toBe(0o600)
  })

  it('claude-code: adds to what .mcp.json and .claude/settings.json already hold', async () => {
    const s = await scratch(temp.dir, 'claude-keep')
    await writeFile(s.path('p/.mcp.json'), JSON.stringify({ mcpServers: { other: { command: 'other' } } }))
    await mkdir(s.path('p/.claude'))
    await writeFile(s.path('p/.claude/settings.json'), JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, model: 'x' }))
    expect((await dsh(s, ['setup', 'claude-code'])).code).toBe(0)
    expect(Object.keys((await json(s.path('p/.mcp.json'))).mcpServers)).toEqual(['other', 'dsh'])
    expect(await json(s.path('p/.claude/settings.json'))).toEqual({ permissions: { allow: ['Bash(ls)', 'mcp__dsh'] }, model: 'x', enabledMcpjsonServers: ['dsh'] })
  })

  it('refuses a config that is not JSON, names it, and writes nothing', async () => {
    const s = await scratch(temp.dir, 'broken')
    await writeFile(s.path('p/opencode.json'), '{ "mcp": { // a comment\n} }')
    const run = await dsh(s, ['setup', 'opencode'])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`${s.path('p/opencode.json')} is not valid JSON`)
    expect(run.stderr).toContain('Nothing was written.')
    expect(await readFile(s.path('p/opencode.json'), 'utf8')).toBe('{ "mcp": { // a comment\n} }')
  })

  it('writes `dsh start` when the dsh on PATH is this one (a global install), else this node and bin by absolute path', async () => {
    const s = await scratch(temp.dir, 'global')
    const bin = join(temp.dir, 'global', 'bin')
    await mkdir(bin)
    await symlink(DSH_BIN, join(bin, 'dsh'))
    await dsh(s, ['setup', 'gemini-cli'], { PATH: `${bin}:${process.env.PATH}` })
    expect((await json(s.path('p/.gemini/settings.json'))).mcpServers.dsh).toEqual({ command: 'dsh', args: ['start'], trust: true })
    const local = await scratch(temp.dir, 'local')
    await dsh(local, ['setup', 'gemini-cli'])
    expect((await json(local.path('p/.gemini/settings.json'))).mcpServers.dsh).toEqual({ command: process.execPath, args: [DSH_BIN, 'start'], trust: true })
  })

  it('run through npx (the project\'s node_modules/.bin first on PATH), writes absolute paths: a client started outside npm lacks that directory', async () => {
    const s = await scratch(temp.dir, 'npx')
    const bin = join(s.project, 'node_modules', '.bin')
    await mkdir(bin, { recursive: true })
    await symlink(DSH_BIN, join(bin, 'dsh'))
    await dsh(s, ['setup', 'gemini-cli'], { PATH: `${bin}:${process.env.PATH}` })
    expect((await json(s.path('p/.gemini/settings.json'))).mcpServers.dsh).toEqual({ command: process.execPath, args: [DSH_BIN, 'start'], trust: true })
    // doctor, run through npx too, checks the PATH the client has: a bare `dsh` found only there will not start.
    await writeFile(s.path('p/opencode.json'), JSON.stringify({ mcp: { dsh: { type: 'local', command: ['dsh', 'start'], enabled: true } } }))
    const run = await dsh(s, ['doctor'], { PATH: `${bin}:${process.env.PATH}` })
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^✗ opencode: opencode\.json\n.*\n {4}✗ dsh is not found on PATH .*node_modules\/\.bin/m)
    expect(run.stdout).toMatch(/^✓ gemini-cli: /m)
  })

  it('rejects an unknown client and --url without --http, with usage status 2', async () => {
    const s = await scratch(temp.dir, 'usage')
    expect(await dsh(s, ['setup', 'cursor'])).toMatchObject({ code: 2, stderr: expect.stringContaining('dsh setup wants a client: claude-code, codex, gemini-cli, opencode, got "cursor"') })
    expect(await dsh(s, ['setup', 'codex', '--url', 'http://127.0.0.1:1/mcp'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--url goes with --http') })
  })
})

describe('dsh doctor', () => {
  it('says every client set up over stdio will reach dsh, after starting each command as the client would', async () => {
    const s = await scratch(temp.dir, 'doctor-stdio')
    for (const client of CLIENTS) expect((await dsh(s, ['setup', client])).code).toBe(0)
    const run = await dsh(s, ['doctor'])
    expect(run.code, run.stdout).toBe(0)
    for (const client of CLIENTS) expect(run.stdout).toMatch(new RegExp(`^✓ ${client}: `, 'm'))
    expect(run.stdout.match(/✓ answers tools\/list in \d+ ms: apply_patch, edit, glob, grep, list, multi_edit, read, str_replace_editor, write/g)).toHaveLength(4)
  })

  it('marks a config whose command is gone, or that lacks what its client needs headless', async () => {
    const s = await scratch(temp.dir, 'doctor-broken')
    await mkdir(s.path('h/.codex'), { recursive: true })
    await writeFile(s.path('h/.codex/config.toml'), '[mcp_servers.dsh]\ncommand = "npx"\nargs = ["dsh", "start"]\n')
    await writeFile(s.path('p/.mcp.json'), JSON.stringify({ mcpServers: { dsh: { command: process.execPath, args: [join(s.project, 'gone/dsh.js'), 'start'] } } }))
    const run = await dsh(s, ['doctor'])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^✗ claude-code: \.mcp\.json\n.*\n.*\n {4}✗ .*gone\/dsh\.js does not exist/m)
    expect(run.stdout).toMatch(/^✗ codex: /m)
    expect(run.stdout).toContain('✗ required = true is missing')
    expect(run.stdout).toContain('✗ default_tools_approval_mode = "approve" is missing')
  })

  it('over HTTP: reaches the server with the token from the environment, and names a missing or wrong token', async () => {
    const s = await scratch(temp.dir, 'doctor-http')
    const token = randomBytes(24).toString('hex')
    const config = join(s.project, 'cordis.http.yml')
    await writeFile(config, (await readFile(join(ROOT, 'docs/examples/cordis.http.yml'), 'utf8')).replace(/^ {4}port: \d+$/m, '    port: 0'))
    const server = await startDsh(['--config', config], s.project, { ...process.env, DSH_MCP_TOKEN: token })
    try {
      const url = /^ {2}transport {2}Streamable HTTP (\S+)$/m.exec(server.stderr())![1]!
      for (const client of CLIENTS) expect((await dsh(s, ['setup', client, '--http', '--url', url])).code).toBe(0)
      const good = await dsh(s, ['doctor'], { DSH_MCP_TOKEN: token })
      expect(good.code, good.stdout).toBe(0)
      expect(good.stdout.match(/✓ answers tools\/list: apply_patch, edit/g)).toHaveLength(4)

      const wrong = await dsh(s, ['doctor'], { DSH_MCP_TOKEN: randomBytes(24).toString('hex') })
      expect(wrong.code).toBe(1)
      expect(wrong.stdout.match(/✗ refused with 401: the token in DSH_MCP_TOKEN is not the one dsh was started with/g)).toHaveLength(4)
      const unset = await dsh(s, ['doctor'], { DSH_MCP_TOKEN: '' })
      expect(unset.stdout.match(/✗ DSH_MCP_TOKEN is not set here/g)).toHaveLength(4)
      // The refusals are in dsh's log, with the address and never the token.
      expect(server.stderr()).toMatch(/refused .*127\.0\.0\.1/)
      expect(server.stderr()).not.toContain(token)
    } finally {
      server.child.kill('SIGTERM')
      await server.done
    }
  })
})
