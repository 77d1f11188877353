import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO } from './paths'
import { upstreamVersion } from './upstream'

function firstLine(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n')[0]!.trim()
  } catch {
    return 'not available'
  }
}

function versionAt(packageJson: string): string {
  if (!existsSync(packageJson)) return 'not installed'
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string }).version ?? 'unknown'
}

/** Name → version of everything a figure depends on: our packages at this commit, baselines, tools. */
export function versionInfo(): Array<[string, string]> {
  const rows: Array<[string, string]> = []
  const commit = firstLine('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'])
  const dirty = firstLine('git', ['-C', REPO, 'status', '--porcelain', '--untracked-files=no', '--', 'packages']) !== ''
  rows.push(['dsh commit', `${commit}${dirty ? ' (packages/ modified)' : ''}`])
  for (const dir of readdirSync(join(REPO, 'packages')).sort()) {
    const file = join(REPO, 'packages', dir, 'package.json')
    if (!existsSync(file)) continue
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string }
    rows.push([pkg.name, pkg.version])
  }
  rows.push(['node', process.version])
  rows.push(['write-file-atomic', versionAt(join(REPO, 'node_modules/write-file-atomic/package.json'))])
  rows.push(['cordis', versionAt(join(REPO, 'node_modules/cordis/package.json'))])
  rows.push(['@modelcontextprotocol/sdk', versionAt(join(REPO, 'packages/mcp/node_modules/@modelcontextprotocol/sdk/package.json'))])
  rows.push(['@modelcontextprotocol/server-filesystem (B10 baseline)', versionAt(join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/package.json'))])
  rows.push(['e2b', versionAt(join(REPO, 'packages/fs-e2b/node_modules/e2b/package.json'))])
  for (const name of ['dsh-fs-local', 'dsh-tool-fs', 'dsh-tools', 'cordis']) rows.push([`upstream @deepseek-ai/${name} (baseline, bench/upstream)`, upstreamVersion(name)])
  rows.push(['sed', firstLine('sed', ['--version'])])
  rows.push(['strace', firstLine('strace', ['-V'])])
  return rows
}
