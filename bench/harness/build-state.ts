import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { REPO } from './paths'

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

/**
 * Whether the built `lib/` of each package is there and not older than its sources. A spawned
 * `dsh` loads the built packages (Node's default export condition), so a stale build would be
 * measured instead of the code at this commit.
 */
export function buildState(packages: readonly string[]): { missing: string[]; stale: string[] } {
  const missing: string[] = []
  const stale: string[] = []
  for (const name of packages) {
    const lib = join(REPO, 'packages', name, 'lib')
    if (!existsSync(join(lib, 'index.js'))) missing.push(name)
    else if (newestMtime(join(REPO, 'packages', name, 'src')) > newestMtime(lib)) stale.push(name)
  }
  return { missing, stale }
}
