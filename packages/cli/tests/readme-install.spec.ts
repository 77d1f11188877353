import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { installLine } from './install-line'

// Each library README's install line names the sibling tarballs the package needs: 0.2.0 is not
// on the registry, so npm would look for a sibling there and fail with ETARGET. Checked against
// package.json (workspace dependencies, followed to the end, and the pinned cordis peer);
// packed.spec.ts runs one such line for real.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const PACKAGES = readdirSync(join(ROOT, 'packages'))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Record<string, any> }))
const BY_NAME = new Map(PACKAGES.map((entry) => [entry.manifest.name as string, entry]))
const LIBRARIES = PACKAGES.filter(({ dir, manifest }) => manifest.private !== true && dir !== 'cli')

const tarball = (manifest: Record<string, any>) => `${String(manifest.name).slice(1).replace('/', '-')}-${manifest.version}.tgz`

/** The workspace packages `name` depends on, directly or not. */
function siblings(name: string, seen = new Set<string>()): Set<string> {
  for (const dependency of Object.keys(BY_NAME.get(name)!.manifest.dependencies ?? {})) {
    if (!BY_NAME.has(dependency) || seen.has(dependency)) continue
    seen.add(dependency)
    siblings(dependency, seen)
  }
  return seen
}

describe('the library READMEs', () => {
  for (const { dir, manifest } of LIBRARIES) {
    it(`${manifest.name}: its install line names its tarball, every sibling tarball it needs, and cordis`, () => {
      const args = installLine(readFileSync(join(ROOT, 'packages', dir, 'README.md'), 'utf8'))
      const wanted = [manifest.name as string, ...siblings(manifest.name)].map((name) => `$DSH/packed/${tarball(BY_NAME.get(name)!.manifest)}`)
      expect(args.filter((arg) => arg.startsWith('$DSH/')).sort()).toEqual(wanted.sort())
      expect(args).toContain(`cordis@${manifest.peerDependencies.cordis}`)
    })
  }
})
