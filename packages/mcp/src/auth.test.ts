import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
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
    const { dir, own } = await tokenDirectory({ XDG_RUNTIME_DIR: runtime })
    expect([dir, own]).toEqual([join(runtime, 'dsh'), false])
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
    await expect(tokenDirectory({ XDG_RUNTIME_DIR: runtime })).rejects.toThrow(`cannot keep the MCP token in ${join(runtime, 'dsh')}: its mode is 755, want 700; `
      + 'remove it, or set XDG_RUNTIME_DIR to a directory only you can enter, or give the token yourself (DSH_MCP_TOKEN, or token in the mcp config) so no file is needed')
  })

  it('without XDG_RUNTIME_DIR uses <tmp>/dsh-<uid> when it is a private directory of ours', async () => {
    const tmp = await temp()
    const uid = process.getuid!()
    expect(await tokenDirectory({}, tmp)).toEqual({ dir: join(tmp, `dsh-${uid}`), own: false })
    expect((await stat(join(tmp, `dsh-${uid}`))).mode & 0o777).toBe(0o700)
    // A second start takes the same one.
    expect(await tokenDirectory({}, tmp)).toEqual({ dir: join(tmp, `dsh-${uid}`), own: false })
  })

  // What another local user can plant at <tmp>/dsh-<uid> before our first start: each one used to stop every start.
  const planted: [string, (path: string) => Promise<void>][] = [
    ['a directory of another user', async (path) => {
      await mkdir(path, { mode: 0o700 })
      // As root the test hands it to another uid; otherwise a directory others can enter is as unsafe.
      if (process.getuid!() === 0) await chown(path, 4242, 4242)
      else await chmod(path, 0o777)
    }],
    ['a directory others can enter', async (path) => {
      await mkdir(path)
      await chmod(path, 0o777)
    }],
    ['a symbolic link to a directory', async (path) => {
      await mkdir(`${path}.target`, { mode: 0o700 })
      await symlink(`${path}.target`, path)
    }],
    ['a regular file', async (path) => {
      await writeFile(path, 'not a directory')
    }],
  ]
  for (const [what, plant] of planted) {
    it(`without XDG_RUNTIME_DIR, falls back to a fresh private directory when <tmp>/dsh-<uid> is ${what}`, async () => {
      const tmp = await temp()
      const shared = join(tmp, `dsh-${process.getuid!()}`)
      await plant(shared)
      const before = await lstat(shared)
      const { dir, own } = await tokenDirectory({}, tmp)
      expect(own).toBe(true)
      expect(dir.startsWith(`${shared}-`)).toBe(true)
      const info = await lstat(dir)
      expect(info.isDirectory()).toBe(true)
      expect(info.uid).toBe(process.getuid!())
      expect(info.mode & 0o777).toBe(0o700)
      // The planted entry is left as it was, and holds no token.
      const after = await lstat(shared)
      expect([after.ino, after.uid, after.mode]).toEqual([before.ino, before.uid, before.mode])
      if (after.isDirectory()) expect(await readdir(shared)).toEqual([])
    })
  }

  it('says what to set when no private directory can be made at all', async () => {
    const tmp = join(await temp(), 'missing')
    await expect(tokenDirectory({}, tmp)).rejects.toThrow(`cannot keep the MCP token in ${tmp}: `)
    await expect(tokenDirectory({}, tmp)).rejects.toThrow('set XDG_RUNTIME_DIR to a directory only you can enter, or give the token yourself (DSH_MCP_TOKEN, or token in the mcp config)')
  })
})
