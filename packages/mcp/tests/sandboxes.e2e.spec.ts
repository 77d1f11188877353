import { type EnvdEmulator, startEnvdEmulator } from '@deepseek-ai/dsh-envd-emulator'
import { freePort } from '@deepseek-ai/dsh-test-kit'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { ChildProcess } from 'node:child_process'
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { call, requireBuild, startDsh, tempDir } from './dsh-process'
import { stackConfig } from './stack-config'

// One `dsh start` over HTTP serving two agents, each its own bearer token, each token with its own
// workspace, each workspace its own sandbox: two envd emulators, each on its own directory, so
// where a call landed is read on disk.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const MAIN = 'sandboxes-main-token-0123456789'
const ALPHA = 'sandboxes-alpha-token-0123456789'
const BETA = 'sandboxes-beta-token-01234567890'

let workspace: Awaited<ReturnType<typeof tempDir>>
const emulators: Record<'alpha' | 'beta', { emulator: EnvdEmulator; root: string }> = {} as never
let dsh: { child: ChildProcess; stderr: () => string }
let url: string

function config(port: number): string {
  const sandbox = (name: 'alpha' | 'beta') => `{ sandboxId: sbx-${name}, sandboxUrl: '${emulators[name].emulator.url}' }`
  return stackConfig({
    fsName: '@deepseek-ai/dsh-fs-e2b',
    fs: `{ debug: true, idleSeconds: 1, requestTimeoutMs: 20000, workspaces: { alpha: ${sandbox('alpha')}, beta: ${sandbox('beta')} } }`,
    mcp: `{ transport: http, port: ${port}, owner: token, token: '${MAIN}', tokens: [{ token: '${ALPHA}', workspace: alpha }, { token: '${BETA}', workspace: beta }] }`,
  })
}

beforeAll(async () => {
  requireBuild()
  workspace = await tempDir()
  for (const name of ['alpha', 'beta'] as const) {
    const root = join(workspace.dir, name)
    await mkdir(root)
    emulators[name] = { root: await realpath(root), emulator: await startEnvdEmulator({ root }) }
  }
  const port = await freePort()
  const file = join(workspace.dir, 'sandboxes.yml')
  await writeFile(file, config(port))
  dsh = await startDsh(['--config', file], workspace.dir, { ...process.env, DSH_MCP_TOKEN: '' }, 10 * 60_000)
  url = `http://127.0.0.1:${port}/mcp`
})

afterAll(async () => {
  dsh?.child.kill('SIGKILL')
  for (const { emulator } of Object.values(emulators)) await emulator?.close()
  await workspace?.[Symbol.asyncDispose]()
})

async function agent(token: string): Promise<Client> {
  const client = new Client({ name: 'sandboxes-test', version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return client
}

const processStarts = (name: 'alpha' | 'beta') => emulators[name].emulator.requests.filter((r) => r.path.endsWith('/Start')).length

it('serves each token\'s calls in the sandbox of its workspace, and nothing in the other', async () => {
  const [alpha, beta] = [await agent(ALPHA), await agent(BETA)]
  expect((await call(alpha, 'write', { file_path: 'notes.txt', content: 'alpha one\n' })).ok).toBe(true)
  expect((await call(beta, 'write', { file_path: 'notes.txt', content: 'beta one\n' })).ok).toBe(true)
  expect(await readFile(join(emulators.alpha.root, 'notes.txt'), 'utf8')).toBe('alpha one\n')
  expect(await readFile(join(emulators.beta.root, 'notes.txt'), 'utf8')).toBe('beta one\n')

  // Each agent reads and edits its own file: the same path, two sandboxes, two owners.
  expect((await call(alpha, 'read', { file_path: 'notes.txt' })).text).toContain('alpha one')
  expect((await call(alpha, 'edit', { file_path: 'notes.txt', old_string: 'one', new_string: 'two' })).ok).toBe(true)
  const stranger = await call(beta, 'edit', { file_path: 'notes.txt', old_string: 'alpha one', new_string: 'beta took it' })
  expect(stranger.ok).toBe(false)
  expect(await readFile(join(emulators.alpha.root, 'notes.txt'), 'utf8')).toBe('alpha two\n')
  expect(await readFile(join(emulators.beta.root, 'notes.txt'), 'utf8')).toBe('beta one\n')
  await Promise.all([alpha.close(), beta.close()])
})

it('refuses a token without a workspace, saying how to give it one, and touches no sandbox', async () => {
  const main = await agent(MAIN)
  const before = processStarts('alpha') + processStarts('beta')
  const refused = await call(main, 'write', { file_path: 'stray.txt', content: 'x\n' })
  expect(refused.ok).toBe(false)
  expect(refused.code).toBe('FS_PERMISSION_DENIED')
  expect(refused.text).toContain('give its bearer token a workspace in the mcp config')
  expect(processStarts('alpha') + processStarts('beta')).toBe(before)
  await main.close()
})

it('drops an idle sandbox and connects it again on its next call, which works as before', async () => {
  const alpha = await agent(ALPHA)
  const read = () => call(alpha, 'read', { file_path: 'notes.txt' })
  expect((await read()).ok).toBe(true)
  // A connected sandbox: a read is its own commands only.
  let started = processStarts('alpha')
  expect((await read()).ok).toBe(true)
  const connected = processStarts('alpha') - started
  // idleSeconds: 1, swept every second: after a few seconds unused the sandbox is dropped, and the
  // next read connects again (one probe command more). Waiting longer never changes the outcome.
  await new Promise((resolve) => setTimeout(resolve, 4_000))
  started = processStarts('alpha')
  const again = await read()
  expect(again.ok).toBe(true)
  expect(again.text).toContain('alpha two')
  expect(processStarts('alpha') - started).toBe(connected + 1)
  await alpha.close()
})
