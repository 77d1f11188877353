import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

/**
 * What the stdio server of a config answers before any tool is called, recorded at build time by
 * `scripts/write-manifest.mjs` from a real `dsh start` of the shipped cordis.yml. `config` is the
 * sha256 of that file's bytes: the manifest speaks for that config only, and for this `version`.
 */
export interface Manifest {
  version: string
  config: string
  protocol: { latest: string; supported: string[] }
  initialize: { capabilities: Record<string, any>; serverInfo: { name: string; version: string }; instructions?: string }
  tools: Array<Record<string, unknown>>
}

/** lib/manifest.json, written by the build beside the bundle (there is none beside src/). */
export const MANIFEST_FILE = new URL('./manifest.json', import.meta.url)
const PACKAGE_FILE = new URL('../package.json', import.meta.url)

export function configDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/**
 * The manifest when it speaks for `configFile` as it is now and for the installed version;
 * otherwise (another config, an edited one, no build) undefined, and the server answers alone.
 */
export function manifestFor(configFile: string): Manifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as Manifest
    const { version } = JSON.parse(readFileSync(PACKAGE_FILE, 'utf8')) as { version: string }
    if (manifest.version !== version) return undefined
    return manifest.config === configDigest(readFileSync(configFile)) ? manifest : undefined
  } catch {
    return undefined
  }
}
