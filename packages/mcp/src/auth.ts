import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { lstat, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const TOKEN_ENV = 'DSH_MCP_TOKEN'

/** Where the bearer token comes from; only a generated one is printed and written to a file. */
export type TokenSource = 'config' | 'env' | 'generated'

export interface BearerToken {
  value: string
  source: TokenSource
}

/** The token of this start: the config's, else `DSH_MCP_TOKEN`, else 32 random bytes. */
export function resolveToken(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): BearerToken {
  if (configured !== undefined) return { value: configured, source: 'config' }
  const fromEnv = env[TOKEN_ENV]
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < 16) throw new Error(`${TOKEN_ENV} is ${fromEnv.length} characters long; use at least 16 (e.g. openssl rand -hex 32)`)
    return { value: fromEnv, source: 'env' }
  }
  return { value: randomBytes(32).toString('base64url'), source: 'generated' }
}

/**
 * Whether an `Authorization` header carries `token`. Both sides are hashed first, so the
 * comparison takes the same time whatever the length or the first wrong byte of a guess.
 */
export function hasBearer(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')
  const offered = digest(match?.[1] ?? '')
  return timingSafeEqual(offered, digest(token)) && match !== null
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** Where token files go, and whether this start made the directory for itself (then it removes it on stop). */
export interface TokenDirectory {
  dir: string
  own: boolean
}

const WHAT_TO_SET = `set XDG_RUNTIME_DIR to a directory only you can enter, or give the token yourself (${TOKEN_ENV}, or token in the mcp config) so no file is needed`

/**
 * The private directory for token files: `$XDG_RUNTIME_DIR/dsh` (a per-user 0700 tmpfs), else
 * `<tmpdir>/dsh-<uid>`. A directory that is not a real directory of ours closed to others is never
 * trusted, since whoever owns it could read or swap the token. Under `XDG_RUNTIME_DIR`, which only
 * its user can write, that is refused. In the shared temp dir anyone may have made the name first
 * (to stop every start of ours), so a fresh directory is made there with `mkdtemp` instead: its
 * random name cannot be taken in advance, and `mkdtemp` makes it 0700.
 */
export async function tokenDirectory(env: NodeJS.ProcessEnv = process.env, tmp = tmpdir()): Promise<TokenDirectory> {
  const uid = process.getuid?.()
  if (env.XDG_RUNTIME_DIR) {
    const dir = join(env.XDG_RUNTIME_DIR, 'dsh')
    const unsafe = await privateDirectory(dir, uid)
    if (unsafe !== undefined) throw new Error(`cannot keep the MCP token in ${dir}: ${unsafe}; remove it, or ${WHAT_TO_SET}`)
    return { dir, own: false }
  }
  const shared = join(tmp, `dsh-${uid ?? 'user'}`)
  if (await privateDirectory(shared, uid) === undefined) return { dir: shared, own: false }
  try {
    return { dir: await mkdtemp(`${shared}-`), own: true }
  } catch (error) {
    throw new Error(`cannot keep the MCP token in ${tmp}: ${(error as Error).message}; ${WHAT_TO_SET}`, { cause: error })
  }
}

/** Makes `dir` (0700) unless it exists; `undefined` when it is a directory of `uid` that others cannot enter, else why not. */
async function privateDirectory(dir: string, uid: number | undefined): Promise<string | undefined> {
  try {
    await mkdir(dir, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return (error as Error).message
  }
  const info = await lstat(dir)
  if (!info.isDirectory()) return info.isSymbolicLink() ? 'it is a symbolic link' : 'it is not a directory'
  if (uid !== undefined && info.uid !== uid) return `it belongs to uid ${info.uid}, not ${uid}`
  if ((info.mode & 0o077) !== 0) return `its mode is ${(info.mode & 0o777).toString(8)}, want 700`
  return undefined
}

/** Writes the token to `<dir>/mcp-<port>.token` (0600, replaced atomically); returns its path. */
export async function writeTokenFile(dir: string, port: number, token: string): Promise<string> {
  const file = join(dir, `mcp-${port}.token`)
  const staged = `${file}.${process.pid}.tmp`
  await writeFile(staged, `${token}\n`, { mode: 0o600, flag: 'wx' })
  try {
    await rename(staged, file)
  } catch (error) {
    await rm(staged, { force: true })
    throw error
  }
  return file
}
