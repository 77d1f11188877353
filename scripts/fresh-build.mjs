// Whether this checkout's built `lib/` folders are older than their sources, and the build that
// brings them up to date: `pnpm start`/`pnpm demo` run it before starting the built `dsh`, and the
// test projects that start `dsh` (cli, mcp) run it before their tests, so that no test passes on a
// build of older sources.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repo = fileURLToPath(new URL('..', import.meta.url))

function newest(dir) {
  let time = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) time = Math.max(time, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return time
}

/** The packages whose build is missing or older than their sources (or, for the CLI, its cordis.yml). */
export function staleBuilds() {
  const names = []
  for (const name of readdirSync(join(repo, 'packages'))) {
    const dir = join(repo, 'packages', name)
    const pkg = join(dir, 'package.json')
    if (!existsSync(pkg) || JSON.parse(readFileSync(pkg, 'utf8')).scripts?.build === undefined) continue
    const lib = join(dir, 'lib')
    const sources = Math.max(newest(join(dir, 'src')), existsSync(join(dir, 'cordis.yml')) ? statSync(join(dir, 'cordis.yml')).mtimeMs : 0)
    if (!existsSync(join(lib, 'index.js')) || sources > newest(lib)) names.push(name)
  }
  return names
}

/** Builds every package when any build is stale; everything the build prints goes to stderr. */
export function buildIfStale(who) {
  const stale = staleBuilds()
  if (stale.length === 0) return
  process.stderr.write(`${who}: building first (${stale.join(', ')} not built or older than the sources)\n`)
  const build = spawnSync('pnpm', ['build'], { cwd: repo, stdio: ['ignore', 2, 2] })
  if (build.status !== 0) throw new Error(`${who}: pnpm build failed (status ${build.status ?? build.signal})`)
}
