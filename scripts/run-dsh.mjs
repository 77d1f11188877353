// `pnpm start` and `pnpm demo`: run the built `dsh` of this checkout in this process, building first
// only when a package's lib/ is missing or older than its sources. Everything the build prints goes
// to stderr: under `dsh start`, stdout is the MCP channel and must carry nothing but messages.
import { join } from 'node:path'
import { buildIfStale, repo } from './fresh-build.mjs'

const bin = join(repo, 'packages/cli/bin/dsh.js')
try {
  buildIfStale('dsh')
} catch (error) {
  process.stderr.write(`${error.message}; nothing was started\n`)
  process.exit(1)
}
process.argv = [process.argv[0], bin, ...process.argv.slice(2)]
await import(bin)
