import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runDsh, startDsh, tempDir, type Run } from './dsh-process'
import { fakeGemini } from './fake-gemini'
import { fakeMessages } from './fake-messages'
import { fakeResponses } from './fake-responses'

// A real client, headless, against a scripted model on loopback, configured by nothing but
// `dsh setup`: the model must be offered dsh's tools in its first request, and its call of the
// writing tool must run without a prompt. The clients are large native downloads, so this runs
// where they are installed: DSH_CLIENTS=<dir> with
// `npm i --prefix <dir> @openai/codex@0.171.0 @anthropic-ai/claude-code@2.1.332 @google/gemini-cli@0.61.0 opencode-ai@1.18.33`.

vi.setConfig({ testTimeout: 300_000 })

const CLIENTS = process.env.DSH_CLIENTS
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const RUNS = 5

/** `codex exec` in `project` with `home` as HOME, to completion. */
function codex(home: string, project: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return client('codex', ['exec', '--skip-git-repo-check', 'write hello.txt'], project, { HOME: home, CODEX_HOME: '', FAKE_KEY: 'fake', ...env })
}

/** An installed client's bin, headless, to completion. */
function client(bin: string, args: string[], project: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const began = performance.now()
  // PWD too: opencode takes its project folder from it, not from the working directory.
  const child = spawn(join(CLIENTS!, 'node_modules/.bin', bin), args, { cwd: project, env: { ...process.env, PWD: project, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  return new Promise((resolve) => child.once('close', (code) => {
    clearTimeout(timer)
    resolve({ code, stdout, stderr, ms: performance.now() - began })
  }))
}

/** The model provider of the fake, placed before the tables `dsh setup` wrote. */
async function pointAtFake(home: string, url: string): Promise<void> {
  const file = join(home, '.codex/config.toml')
  const provider = `model = "fake-model"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${url}"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\nsupports_websockets = false\n\n`
  await writeFile(file, provider + await readFile(file, 'utf8'))
}

let temp: Awaited<ReturnType<typeof tempDir>>
let model: Awaited<ReturnType<typeof fakeResponses>>
const CONTENT = 'hi from the fake model\n'

describe.runIf(CLIENTS !== undefined)('Codex 0.171, headless, configured by dsh setup codex', () => {
  beforeAll(async () => {
    temp = await tempDir()
    model = await fakeResponses({ file_path: 'hello.txt', content: CONTENT })
  })
  afterAll(async () => {
    await model?.close()
    await temp?.[Symbol.asyncDispose]()
  })

  it(`stdio: sees dsh's tools in its first model request and runs the write, in each of ${RUNS} fresh starts`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const project = join(temp.dir, `stdio-${run}`, 'project')
      const home = join(temp.dir, `stdio-${run}`, 'home')
      await mkdir(project, { recursive: true })
      await mkdir(home, { recursive: true })
      expect((await runDsh(['setup', 'codex'], project, 60_000, { ...process.env, HOME: home, CODEX_HOME: '' })).code).toBe(0)
      await pointAtFake(home, model.url)
      const before = model.requests.length
      const result = await codex(home, project)
      expect(result.code, result.stderr).toBe(0)
      const first = model.requests[before]!
      expect(first.tools.filter((tool) => tool.startsWith('mcp__dsh/')).sort()).toEqual(expect.arrayContaining(['mcp__dsh/edit', 'mcp__dsh/read', 'mcp__dsh/write']))
      expect(await readFile(join(project, 'hello.txt'), 'utf8')).toBe(CONTENT)
    }
  })

  it('Streamable HTTP: reaches dsh with the token from DSH_MCP_TOKEN and runs the write', async () => {
    const project = join(temp.dir, 'http', 'project')
    const home = join(temp.dir, 'http', 'home')
    await mkdir(project, { recursive: true })
    await mkdir(home, { recursive: true })
    const token = randomBytes(24).toString('hex')
    const config = join(project, '..', 'cordis.http.yml')
    await writeFile(config, (await readFile(join(ROOT, 'docs/examples/cordis.http.yml'), 'utf8')).replace(/^ {4}port: \d+$/m, '    port: 0'))
    const server = await startDsh(['--config', config], project, { ...process.env, DSH_MCP_TOKEN: token })
    try {
      const url = /^ {2}transport {2}Streamable HTTP (\S+)$/m.exec(server.stderr())![1]!
      expect((await runDsh(['setup', 'codex', '--http', '--url', url], project, 60_000, { ...process.env, HOME: home, CODEX_HOME: '' })).code).toBe(0)
      await pointAtFake(home, model.url)
      const result = await codex(home, project, { DSH_MCP_TOKEN: token })
      expect(result.code, result.stderr).toBe(0)
      expect(await readFile(join(project, 'hello.txt'), 'utf8')).toBe(CONTENT)
    } finally {
      server.child.kill('SIGTERM')
      await server.done
    }
  })
})

describe.runIf(CLIENTS !== undefined)('Claude Code 2.1, headless (-p), configured by dsh setup claude-code', () => {
  let scratch: Awaited<ReturnType<typeof tempDir>>
  let anthropic: Awaited<ReturnType<typeof fakeMessages>>
  beforeAll(async () => {
    scratch = await tempDir()
    anthropic = await fakeMessages({ file_path: 'hello.txt', content: CONTENT })
  })
  afterAll(async () => {
    await anthropic?.close()
    await scratch?.[Symbol.asyncDispose]()
  })

  it(`in an untrusted folder, the documented -p line offers dsh's tools in the first request and runs the write, in each of ${RUNS} fresh starts`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const project = join(scratch.dir, `claude-${run}`, 'project')
      const home = join(scratch.dir, `claude-${run}`, 'home')
      await mkdir(project, { recursive: true })
      await mkdir(home, { recursive: true })
      const setup = await runDsh(['setup', 'claude-code'], project, 60_000, { ...process.env, HOME: home })
      expect(setup.code).toBe(0)
      // The headless line setup prints, run as printed.
      const line = /^headless: claude (-p "<prompt>" .*?) \(/m.exec(setup.stdout)![1]!
      const args = line.split(' ').map((arg) => arg === '"<prompt>"' ? 'write hello.txt' : arg)
      const before = anthropic.requests.length
      const result = await client('claude', args, project, { HOME: home, ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'sk-fake' })
      expect(result.code, result.stderr).toBe(0)
      expect(anthropic.requests[before]!.mentionsDsh).toBe(true)
      expect(await readFile(join(project, 'hello.txt'), 'utf8')).toBe(CONTENT)
    }
  })
})

describe.runIf(CLIENTS !== undefined)('Gemini CLI 0.61, headless (-p), configured by dsh setup gemini-cli', () => {
  let scratch: Awaited<ReturnType<typeof tempDir>>
  let gemini: Awaited<ReturnType<typeof fakeGemini>>
  beforeAll(async () => {
    scratch = await tempDir()
    gemini = await fakeGemini({ file_path: 'hello.txt', content: CONTENT })
  })
  afterAll(async () => {
    await gemini?.close()
    await scratch?.[Symbol.asyncDispose]()
  })

  it('the headless line setup prints offers dsh\'s tools in the first request and runs the trusted write without a confirmation', async () => {
    const project = join(scratch.dir, 'gemini', 'project')
    const home = join(scratch.dir, 'gemini', 'home')
    await mkdir(project, { recursive: true })
    await mkdir(join(home, '.gemini'), { recursive: true })
    // The user's own choice of authentication, as after a first interactive run.
    await writeFile(join(home, '.gemini/settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }))
    const setup = await runDsh(['setup', 'gemini-cli'], project, 60_000, { ...process.env, HOME: home })
    expect(setup.code).toBe(0)
    const line = /^headless: (GEMINI_CLI_TRUST_WORKSPACE=true) gemini -p "<prompt>" \(/m.exec(setup.stdout)!
    const [name, value] = line[1]!.split('=')
    const result = await client('gemini', ['-m', 'gemini-2.5-flash', '-p', 'write hello.txt'], project, {
      HOME: home, GEMINI_API_KEY: 'fake', GOOGLE_GEMINI_BASE_URL: gemini.url, [name!]: value,
    })
    expect(result.code, result.stderr).toBe(0)
    expect(gemini.requests[0]).toEqual(expect.arrayContaining(['mcp_dsh_read', 'mcp_dsh_write', 'mcp_dsh_edit']))
    expect(await readFile(join(project, 'hello.txt'), 'utf8')).toBe(CONTENT)
  })
})

describe.runIf(CLIENTS !== undefined)('opencode 1.18, headless (run), configured by dsh setup opencode', () => {
  let scratch: Awaited<ReturnType<typeof tempDir>>
  let openai: Awaited<ReturnType<typeof fakeResponses>>
  beforeAll(async () => {
    scratch = await tempDir()
    openai = await fakeResponses({ file_path: 'hello.txt', content: CONTENT }, 'dsh_write')
  })
  afterAll(async () => {
    await openai?.close()
    await scratch?.[Symbol.asyncDispose]()
  })

  it(`stdio: offers dsh's tools to the model and runs the write without a prompt, in each of ${RUNS} fresh starts`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const project = join(scratch.dir, `opencode-${run}`, 'project')
      const home = join(scratch.dir, `opencode-${run}`, 'home')
      await mkdir(project, { recursive: true })
      await mkdir(home, { recursive: true })
      // The user's own model provider, pointed at the fake; setup adds dsh beside it.
      await writeFile(join(project, 'opencode.json'), JSON.stringify({ provider: { openai: { options: { baseURL: openai.url, apiKey: 'fake' } } } }))
      expect((await runDsh(['setup', 'opencode'], project, 60_000, { ...process.env, HOME: home })).code).toBe(0)
      const before = openai.requests.length
      // No models.dev fetch (this machine has no internet) and no update check: the run is offline.
      const result = await client('opencode', ['run', '-m', 'openai/gpt-5', 'write hello.txt'], project, { HOME: home, OPENCODE_DISABLE_MODELS_FETCH: 'true', OPENCODE_DISABLE_AUTOUPDATE: 'true' })
      expect(result.code, result.stderr).toBe(0)
      const offered = openai.requests.slice(before).find((request) => request.tools.includes('dsh_write'))
      expect(offered?.tools).toEqual(expect.arrayContaining(['dsh_read', 'dsh_write', 'dsh_edit']))
      expect(await readFile(join(project, 'hello.txt'), 'utf8')).toBe(CONTENT)
    }
  })
})
