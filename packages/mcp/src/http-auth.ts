import type { Context } from 'cordis'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { TOKEN_ENV, type BearerToken } from './auth'
import { reply } from './http-reply'
import { matchBearer } from './owners'

/** What the gate found: the bearer a request carries (`undefined` under `auth: none`), or that it was refused. */
export type GateResult = { bearer: string | undefined } | 'refused'

/**
 * Checks a request's bearer token against every accepted one. A refusal is answered (401, naming
 * where the token is) and logged here, so the caller only stops. `tokenFile` is read at each
 * refusal: the file is written once the port is bound, after the gate exists.
 */
export function bearerGate(token: BearerToken | undefined, accepted: readonly string[], logger: ReturnType<Context['logger']>, tokenFile: () => string | undefined) {
  // A client that sends no token, or another one, would otherwise fail with nothing in dsh's log.
  const refusals = refusalLog(logger)
  return (request: IncomingMessage, response: ServerResponse): GateResult => {
    if (token === undefined) return { bearer: undefined }
    const bearer = matchBearer(request.headers.authorization, accepted)
    if (bearer !== undefined) return { bearer }
    refusals.log(request)
    response.setHeader('www-authenticate', 'Bearer realm="dsh"')
    reply(response, 401, `missing or wrong bearer token: send the header "Authorization: Bearer <token>"; ${whereIsTheToken(token, tokenFile())}`, -32000)
    return 'refused'
  }
}

function whereIsTheToken(token: BearerToken, file: string | undefined): string {
  if (token.source === 'env') return `the token is the value of ${TOKEN_ENV} that dsh was started with`
  if (token.source === 'config') return 'the token is the one set as token in the mcp config of dsh'
  return `the token is in ${file} (also printed on dsh's stderr when it started)`
}

/**
 * Logs each request refused for its token: whether a token came at all, and from which address
 * (never the token). A flood is summed up: at most one line a second, with the count since.
 */
function refusalLog(logger: ReturnType<Context['logger']>): { log(request: IncomingMessage): void } {
  let last = 0
  let unlogged = 0
  return {
    log(request) {
      const now = Date.now()
      if (now - last < 1000) {
        unlogged++
        return
      }
      last = now
      const header = request.headers.authorization
      const what = header === undefined ? 'no Authorization header' : /^Bearer\s/i.test(header) ? 'a wrong bearer token' : 'an Authorization header that is not a bearer token'
      const more = unlogged > 0 ? ` (and ${unlogged} more refusals in the last seconds)` : ''
      unlogged = 0
      logger.warn('refused %s %s from %s port %s: %s%s', request.method, request.url, request.socket.remoteAddress, request.socket.remotePort, what, more)
    },
  }
}
