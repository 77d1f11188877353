import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * The policy owner of a bearer token: a hash, so that no ledger (a journal file, a Redis database)
 * ever holds a token in clear. The label keeps it apart from any other use of the same token's hash.
 */
export function tokenOwner(token: string): string {
  return `token-${createHash('sha256').update(`dsh policy owner\0${token}`, 'utf8').digest('hex').slice(0, 40)}`
}

/**
 * Which of `tokens` an `Authorization` header carries, if any. Every token is compared, each by
 * hash in constant time, so neither the time taken nor an early exit tells a guess how close it was.
 */
export function matchBearer(header: string | undefined, tokens: readonly string[]): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')
  const offered = digest(match?.[1] ?? '')
  let found: string | undefined
  for (const token of tokens) {
    if (timingSafeEqual(offered, digest(token)) && found === undefined) found = token
  }
  return match === null ? undefined : found
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/**
 * Every token accepted (the main one, then one per further agent) and what a session of each
 * carries besides its owner: the workspace its token names, if any. No token: none accepted.
 */
export function bearers(main: string | undefined, agents: readonly { token: string; workspace?: string }[]) {
  const accepted = main === undefined ? [] : [main, ...agents.map((agent) => agent.token)]
  const workspaces = new Map(agents.flatMap((agent) => (agent.workspace === undefined ? [] : [[agent.token, agent.workspace] as const])))
  const placed = (bearer: string | undefined): { workspace?: string } => {
    const workspace = bearer === undefined ? undefined : workspaces.get(bearer)
    return workspace === undefined ? {} : { workspace }
  }
  return { accepted, placed }
}
