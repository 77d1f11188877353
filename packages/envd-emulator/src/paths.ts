import { isAbsolute, join, resolve } from 'node:path'
import { RpcError, type RpcCode } from './connect.js'

/**
 * Resolves a sandbox path the way envd does for its user: `~` and `~/…` expand to the home,
 * relative paths are taken from the home, and the result is cleaned. Sandbox paths are host
 * paths (no chroot), so shell commands and file calls agree on every path.
 */
export function resolveSandboxPath(path: string, home: string): string {
  if (path === '' || path === '~') return home
  if (path.startsWith('~/')) return resolve(home, path.slice(2))
  if (path.startsWith('~')) throw new RpcError('invalid_argument', `cannot expand another user's home: ${path}`)
  return isAbsolute(path) ? resolve(path) : resolve(join(home, path))
}

/**
 * Node errno → the code envd answers with. envd only singles out "does not exist" (Go's
 * os.IsNotExist, i.e. ENOENT); every other failure of a filesystem call is `internal`.
 */
export function errnoCode(error: unknown): RpcCode {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? 'not_found' : 'internal'
}

export function errnoError(error: unknown, what: string): RpcError {
  const message = error instanceof Error ? error.message : String(error)
  return new RpcError(errnoCode(error), `${what}: ${message}`)
}
