import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { client, CLIENTS, codex, pointAtFake } from './clients'
import { runDsh, tempDir } from './dsh-process'
import { fakeGemini } from './fake-gemini'
import { fakeMessages } from './fake-messages'
import { fakeResponses } from './fake-responses'

// Issue 27: an image dsh's `read` returns reaches the model through each real client unchanged.
// Each client, configured by `dsh setup` alone, runs headless against a scripted model that calls
// `read` on a PNG; the request the client sends next must carry the PNG's own bytes (its base64),
// whatever wrapping the client's model API gives an image. Runs where the clients are installed
// (DSH_CLIENTS, see clients.e2e.spec.ts).

vi.setConfig({ testTimeout: 300_000 })

/** A 4×3 RGB PNG, small enough that dsh returns it in its own format. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAKklEQVR4nA3HMQEAMAzDMAMriMDpaSgBUYCbPgEOLh5CnLjx8lOnbr36AOO3DflsbMvSAAAAAElFTkSuQmCC'
const READ = { file_path: 'pixel.png' }

let scratch: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  scratch = await tempDir()
})
afterAll(async () => {
  await scratch?.[Symbol.asyncDispose]()
})

/** A fresh project holding the PNG, and a fresh home, configured for `name` by `dsh setup`. */
async function project(name: string, before?: (dir: string) => Promise<void>): Promise<{ dir: string; home: string }> {
  const dir = join(scratch.dir, name, 'project')
  const home = join(scratch.dir, name, 'home')
  await mkdir(dir, { recursive: true })
  await mkdir(join(home, '.gemini'), { recursive: true })
  await writeFile(join(dir, 'pixel.png'), Buffer.from(PNG, 'base64'))
  await before?.(dir)
  const setup = await runDsh(['setup', name], dir, 60_000, { ...process.env, HOME: home, CODEX_HOME: '' })
  expect(setup.code, setup.stderr).toBe(0)
  return { dir, home }
}

describe.runIf(CLIENTS !== undefined)('an image read by dsh reaches the model unchanged', () => {
  it('Codex 0.171', async () => {
    const model = await fakeResponses(READ, 'mcp__dsh/read')
    try {
      const { dir, home } = await project('codex')
      await pointAtFake(home, model.url)
      const result = await codex(home, dir, {}, 'read pixel.png')
      expect(result.code, result.stderr).toBe(0)
      expect(model.requests.find((request) => request.answered)?.body).toContain(PNG)
    } finally {
      await model.close()
    }
  })

  it('Claude Code 2.1', async () => {
    const model = await fakeMessages(READ, 'mcp__dsh__read')
    try {
      const { dir, home } = await project('claude-code')
      const result = await client('claude', ['-p', 'read pixel.png', '--mcp-config', '.mcp.json', '--allowedTools', 'mcp__dsh'], dir, {
        HOME: home, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-fake',
      })
      expect(result.code, result.stderr).toBe(0)
      expect(model.requests.at(-1)?.body).toContain(PNG)
    } finally {
      await model.close()
    }
  })

  it('Gemini CLI 0.61', async () => {
    const model = await fakeGemini(READ, 'mcp_dsh_read')
    try {
      const { dir, home } = await project('gemini-cli')
      await writeFile(join(home, '.gemini/settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }))
      const result = await client('gemini', ['-m', 'gemini-2.5-flash', '-p', 'read pixel.png'], dir, {
        HOME: home, GEMINI_API_KEY: 'fake', GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_CLI_TRUST_WORKSPACE: 'true',
      })
      expect(result.code, result.stderr).toBe(0)
      expect(model.bodies.at(-1)).toContain(PNG)
    } finally {
      await model.close()
    }
  })

  it('opencode 1.18', async () => {
    const model = await fakeResponses(READ, 'dsh_read')
    try {
      const { dir, home } = await project('opencode', (folder) => writeFile(join(folder, 'opencode.json'),
        JSON.stringify({ provider: { openai: { options: { baseURL: model.url, apiKey: 'fake' } } } })))
      const result = await client('opencode', ['run', '-m', 'openai/gpt-5', 'read pixel.png'], dir, {
        HOME: home, OPENCODE_DISABLE_MODELS_FETCH: 'true', OPENCODE_DISABLE_AUTOUPDATE: 'true',
      })
      expect(result.code, result.stderr).toBe(0)
      expect(model.requests.find((request) => request.answered)?.body).toContain(PNG)
    } finally {
      await model.close()
    }
  })
})
