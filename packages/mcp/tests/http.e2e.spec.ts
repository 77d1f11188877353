import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { call, requireBuild, startDsh, tempDir } from './dsh-process'
import { localFs, stackConfig } from './stack-config'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

/** The default config with the mcp entry switched to Streamable HTTP on a free port. */
function httpConfig(dir: string): string {
  return stackConfig({ fs: localFs(dir), mcp: '{ transport: http, port: 0 }' })
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'dsh-e2e', version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return client
}

describe('dsh start over Streamable HTTP, two clients at once', () => {
  it('keeps observations per session: B cannot edit what only A read', async () => {
    await using temp = await tempDir()
    const config = join(temp.dir, 'cordis.yml')
    await writeFile(config, httpConfig(temp.dir))
    await writeFile(join(temp.dir, 'c.txt'), 'alpha\nbeta\n')
    // The token file goes to $XDG_RUNTIME_DIR/dsh; this one is private to the test.
    const runtime = await mkdtemp(join(tmpdir(), 'dsh-runtime-'))
    vi.stubEnv('XDG_RUNTIME_DIR', runtime)
    vi.stubEnv('DSH_MCP_TOKEN', '')
    const dsh = await startDsh(['--config', config], temp.dir).finally(() => vi.unstubAllEnvs())
    // The banner names the endpoint with the real port (`port: 0` picks one), the log the token and its file.
    const url = /Streamable HTTP (http:\/\/\S+)/.exec(dsh.stderr())![1]!
    const [, token, tokenFile] = /bearer token (\S+) \(also in (\S+), mode 0600\)/.exec(dsh.stderr())!
    expect(tokenFile).toBe(join(runtime, 'dsh', `mcp-${new URL(url).port}.token`))
    expect(await readFile(tokenFile!, 'utf8')).toBe(`${token}\n`)
    expect((await stat(tokenFile!)).mode & 0o777).toBe(0o600)
    await expect(connect(url, 'not-the-token-of-this-start')).rejects.toMatchObject({ code: 401 })
    const [a, b] = await Promise.all([connect(url, token!), connect(url, token!)])
    try {
      expect(a.transport?.sessionId).not.toBe(b.transport?.sessionId)
      expect(await call(a, 'read', { file_path: 'c.txt' })).toMatchObject({ ok: true })
      const refused = await call(b, 'edit', { file_path: 'c.txt', old_string: 'beta', new_string: 'BETA' })
      expect(refused).toMatchObject({ ok: false, code: 'FS_NOT_OBSERVED' })
      expect(await readFile(join(temp.dir, 'c.txt'), 'utf8')).toBe('alpha\nbeta\n')
      // Both sessions at once: A's edit goes through while B reads, and B then holds its own view.
      const [edited, readByB] = await Promise.all([
        call(a, 'edit', { file_path: 'c.txt', old_string: 'alpha', new_string: 'ALPHA' }),
        call(b, 'read', { file_path: 'c.txt' }),
      ])
      expect(edited).toMatchObject({ ok: true })
      expect(readByB).toMatchObject({ ok: true })
      expect(await readFile(join(temp.dir, 'c.txt'), 'utf8')).toBe('ALPHA\nbeta\n')
    } finally {
      await Promise.all([a.close(), b.close()])
      dsh.child.kill('SIGTERM')
    }
    expect((await dsh.done).code).toBe(0)
    expect(await readFile(config, 'utf8')).toBe(httpConfig(temp.dir))
    await expect(stat(tokenFile!)).rejects.toMatchObject({ code: 'ENOENT' })
    await rm(runtime, { recursive: true, force: true })
  })
})
