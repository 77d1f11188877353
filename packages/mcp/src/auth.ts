import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises'
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

/**
 * The private directory for token files: `$XDG_RUNTIME_DIR/dsh` (a per-user 0700 tmpfs), else
 * `<tmpdir>/dsh-<uid>`. A directory that another user created first, or that others can enter,
 * is refused rather than trusted, since whoever owns it could read or swap the token.
 */
export async function tokenDirectory(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const uid = process.getuid?.()
  const dir = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'dsh') : join(tmpdir(), `dsh-${uid ?? 'user'}`)
  await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  const info = await lstat(dir)
  if (!info.isDirectory()) throw new Error(`cannot keep the MCP token in ${dir}: it is not a directory`)
  if (uid !== undefined && info.uid !== uid) throw new Error(`cannot keep the MCP token in ${dir}: it belongs to uid ${info.uid}, not ${uid}`)
  if ((info.mode & 0o077) !== 0) throw new Error(`cannot keep the MCP token in ${dir}: its mode is ${(info.mode & 0o777).toString(8)}, want 700`)
  return dir
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
