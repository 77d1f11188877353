import type { IncomingMessage } from 'node:http'
import { networkInterfaces } from 'node:os'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])
const WILDCARD = new Set(['0.0.0.0', '::'])

export function isLoopback(host: string): boolean {
  const name = bare(host)
  return LOOPBACK.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name)
}

/**
 * The names a request may carry in `Host` and `Origin`: loopback, the address the server is bound
 * to (every interface address for a wildcard bind) and the configured `allowedHosts`. An IP literal
 * is safe to allow: a DNS-rebinding page is served from its own name, and the browser sends that
 * name, never the address it resolved to.
 */
export function allowedHostnames(bind: string, extra: readonly string[]): Set<string> {
  const names = new Set([...LOOPBACK, bare(bind), ...extra.map(bare)])
  if (WILDCARD.has(bare(bind))) {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const { address } of addresses ?? []) names.add(bare(address))
    }
  }
  return names
}

/**
 * DNS-rebinding guard, on every bind: a web page that resolves its own name to this machine still
 * sends its own name in `Host` (and its own origin in `Origin`), so both must be on the allow-list.
 * Returns the reason for a refusal, or undefined when the request may proceed.
 */
export function rejectForeignHost(request: IncomingMessage, allowed: ReadonlySet<string>): string | undefined {
  const host = request.headers.host
  const name = host === undefined ? '' : hostname(`http://${host}`)
  if (!allowed.has(name) && !isLoopback(name)) {
    return `Host ${JSON.stringify(host ?? '')} is not a name of this server; add it to allowedHosts in the mcp config if clients use it`
  }
  const origin = request.headers.origin
  if (origin === undefined) return undefined
  const originName = hostname(origin)
  if (!allowed.has(originName) && !isLoopback(originName)) return `Origin ${JSON.stringify(origin)} is not an origin of this server`
  return undefined
}

function hostname(url: string): string {
  try {
    return bare(new URL(url).hostname)
  } catch {
    return ''
  }
}

/** `[::1]` and `::1`, `LocalHost` and `localhost` are the same name. */
function bare(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
}
