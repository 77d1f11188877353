import type { IncomingMessage } from 'node:http'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/**
 * DNS-rebinding guard for a server bound to loopback: a web page that resolves its own name to
 * 127.0.0.1 still sends its own name in `Host` (and its own origin in `Origin`), so both must name
 * a loopback host. Without this, any site open in a browser could call the file tools.
 * Returns the reason for a refusal, or undefined when the request may proceed.
 */
export function rejectForeignHost(request: IncomingMessage): string | undefined {
  const host = request.headers.host
  if (host === undefined || !isLoopback(hostname(`http://${host}`))) return `Host ${JSON.stringify(host ?? '')} is not a loopback name`
  const origin = request.headers.origin
  if (origin !== undefined && !isLoopback(hostname(origin))) return `Origin ${JSON.stringify(origin)} is not a loopback origin`
  return undefined
}

function hostname(url: string): string {
  try {
    return new URL(url).hostname
  } catch {
    return ''
  }
}
