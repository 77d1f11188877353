import { parseArguments } from './arguments'
import { manifestFor } from './manifest'
import { StdioFront } from './stdio-front'

export { StdioFront } from './stdio-front'

/**
 * The first thing `bin/dsh.js` runs, before the bundle is imported: for `dsh start` of a config the
 * build has a manifest for, a front that answers the client's first questions at once (see
 * stdio-front.ts). Node built-ins only, so it costs a few milliseconds of a cold start.
 */
export function openFront(argv: readonly string[]): StdioFront | undefined {
  const parsed = parseArguments(argv)
  if (parsed.command !== 'start') return undefined
  const manifest = manifestFor(parsed.configFile)
  return manifest === undefined ? undefined : new StdioFront(manifest)
}
