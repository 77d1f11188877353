// `pnpm start` and `pnpm demo`: run the built `dsh` of this checkout in this process, building first
// only when a package's lib/ is missing or older than its sources. Everything the build prints goes
// to stderr: under `dsh start`, stdout is the MCP channel and must carry nothing but messages.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const bin = join(repo, 'packages/cli/bin/dsh.js')

function newest(dir) {
  let time = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) time = Math.max(time, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return time
}

/** The packages whose build is missing or older than their sources (or, for the CLI, its cordis.yml). */
function unbuilt() {
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

const stale = unbuilt()
if (stale.length > 0) {
  process.stderr.write(`dsh: building first (${stale.join(', ')} not built or older than the sources)\n`)
  const build = spawnSync('pnpm', ['build'], { cwd: repo, stdio: ['ignore', 2, 2] })
  if (build.status !== 0) {
    process.stderr.write(`dsh: pnpm build failed (status ${build.status ?? build.signal}); nothing was started\n`)
    process.exit(1)
  }
}
process.argv = [process.argv[0], bin, ...process.argv.slice(2)]
await import(bin)
