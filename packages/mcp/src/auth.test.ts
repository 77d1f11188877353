import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { hasBearer, resolveToken, tokenDirectory, writeTokenFile } from './auth'

const temps: string[] = []
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true })
})
async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-auth-'))
  temps.push(dir)
  return dir
}

describe('the bearer token', () => {
  it('comes from the config, else DSH_MCP_TOKEN, else 32 random bytes that differ per start', () => {
    const env = { DSH_MCP_TOKEN: 'e'.repeat(20) }
    expect(resolveToken('c'.repeat(16), env)).toEqual({ value: 'c'.repeat(16), source: 'config' })
    expect(resolveToken(undefined, env)).toEqual({ value: 'e'.repeat(20), source: 'env' })
    const a = resolveToken(undefined, {})
    expect(a.source).toBe('generated')
    expect(Buffer.from(a.value, 'base64url')).toHaveLength(32)
    expect(resolveToken(undefined, {}).value).not.toBe(a.value)
  })

  it('refuses a DSH_MCP_TOKEN too short to be a secret', () => {
    expect(() => resolveToken(undefined, { DSH_MCP_TOKEN: 'short' })).toThrow('DSH_MCP_TOKEN is 5 characters long; use at least 16')
  })

  it('is accepted only as the whole Bearer credential', () => {
    const token = 'A'.repeat(43)
    expect(hasBearer(`Bearer ${token}`, token)).toBe(true)
    expect(hasBearer(`bearer  ${token}`, token)).toBe(true)
    expect(hasBearer(undefined, token)).toBe(false)
    expect(hasBearer('', token)).toBe(false)
    expect(hasBearer(token, token)).toBe(false)
    expect(hasBearer(`Bearer ${token.slice(1)}`, token)).toBe(false)
    expect(hasBearer(`Bearer ${token}A`, token)).toBe(false)
    expect(hasBearer(`Basic ${token}`, token)).toBe(false)
    expect(hasBearer(`Bearer ${token} extra`, token)).toBe(false)
  })
})

describe('the token file', () => {
  it('lives in a 0700 directory under XDG_RUNTIME_DIR and is written 0600', async () => {
    const runtime = await temp()
    const dir = await tokenDirectory({ XDG_RUNTIME_DIR: runtime })
    expect(dir).toBe(join(runtime, 'dsh'))
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    const file = await writeTokenFile(dir, 4321, 'secret-token-value')
    expect(file).toBe(join(dir, 'mcp-4321.token'))
    expect(await readFile(file, 'utf8')).toBe('secret-token-value\n')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    // A second start on the same port replaces it.
    await writeTokenFile(dir, 4321, 'next-token-value')
    expect(await readFile(file, 'utf8')).toBe('next-token-value\n')
  })

  it('refuses a directory that others can enter', async () => {
    const runtime = await temp()
    await mkdir(join(runtime, 'dsh'))
    await chmod(join(runtime, 'dsh'), 0o755)
    await expect(tokenDirectory({ XDG_RUNTIME_DIR: runtime })).rejects.toThrow(`cannot keep the MCP token in ${join(runtime, 'dsh')}: its mode is 755, want 700`)
  })
})
