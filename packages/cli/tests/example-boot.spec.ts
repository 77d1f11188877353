import { execFileSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hasBinary, startRedis } from '@deepseek-ai/dsh-test-kit'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { requireBuild, startDsh, tempDir } from './dsh-process'

// A reader follows docs/examples literally: each HTTP example must boot with `dsh start --config`
// and serve a read to the real MCP SDK client (cordis.e2b.yml has e2b-example.spec.ts).

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 90_000 })

const EXAMPLES = fileURLToPath(new URL('../../../docs/examples/', import.meta.url))
const TOKEN_A = 'a'.repeat(32)
const TOKEN_B = 'b'.repeat(32)

/** Boots `config` in `dir`, reads `a.txt` over Streamable HTTP with `token`, and stops dsh. */
async function readThrough(config: string, dir: string, env: NodeJS.ProcessEnv, token: string): Promise<string> {
  const dsh = await startDsh(['--config', config], dir, { ...process.env, ...env })
  try {
    const url = /transport {2}Streamable HTTP (\S+)/.exec(dsh.stderr())![1]!
    const client = new Client({ name: 'example-boot', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    const result = await client.callTool({ name: 'read', arguments: { file_path: 'a.txt' } })
    await client.close()
    expect(result.isError ?? false).toBe(false)
    return (result.content as { text: string }[])[0]!.text
  } finally {
    dsh.child.kill('SIGTERM')
    await dsh.done
  }
}

describe('docs/examples', () => {
  it('cordis.http.yml boots (its port set to 0) and serves a read to the MCP SDK client', async () => {
    await using temp = await tempDir()
    await writeFile(join(temp.dir, 'a.txt'), 'hello\n')
    const config = join(temp.dir, 'cordis.http.yml')
    const text = await readFile(join(EXAMPLES, 'cordis.http.yml'), 'utf8')
    expect(text).toMatch(/^ {4}port: 3000$/m)
    await writeFile(config, text.replace(/^ {4}port: 3000$/m, '    port: 0'))
    expect(await readThrough(config, temp.dir, { DSH_MCP_TOKEN: TOKEN_A }, TOKEN_A)).toContain('1\thello')
  })

  it.skipIf(!hasBinary('redis-server'))('cordis.replica.yml boots on a real Redis with the tokens from its environment, and serves both agents', async () => {
    await using redis = await startRedis()
    await using temp = await tempDir()
    await writeFile(join(temp.dir, 'a.txt'), 'hello\n')
    const config = join(temp.dir, 'cordis.replica.yml')
    const text = await readFile(join(EXAMPLES, 'cordis.replica.yml'), 'utf8')
    const ledger = /^ {4}ledger: redis:\/\/127\.0\.0\.1:6379\/0$/m
    expect(text).toMatch(ledger)
    await writeFile(config, text.replace(ledger, `    ledger: ${redis.url}/0`))
    const env = { DSH_PORT: '0', DSH_AGENT_A_TOKEN: TOKEN_A, DSH_AGENT_B_TOKEN: TOKEN_B, DSH_MCP_TOKEN: '' }
    expect(await readThrough(config, temp.dir, env, TOKEN_A)).toContain('1\thello')
    expect(await readThrough(config, temp.dir, env, TOKEN_B)).toContain('1\thello')
  })

  it.skipIf(!hasBinary('haproxy'))('haproxy.cfg is a configuration haproxy accepts', () => {
    expect(() => execFileSync('haproxy', ['-c', '-f', join(EXAMPLES, 'haproxy.cfg')], { stdio: 'pipe' })).not.toThrow()
  })
})
