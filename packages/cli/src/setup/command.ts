import { accessSync, constants, realpathSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { BIN } from '../arguments'

/**
 * The argv a client runs to start this dsh over stdio: `dsh start` when the `dsh` on PATH is this
 * one (a global install), else this node and this bin by absolute path. Never `npx dsh`: npx
 * costs a second start of Node before dsh's, and where dsh is not installed it would fetch the
 * unrelated `dsh` of the registry.
 */
export function serverCommand(configFile: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const start = ['start', ...(configFile === undefined ? [] : ['--config', configFile])]
  const onPath = which('dsh', clientEnv(env))
  if (onPath !== undefined && same(onPath, BIN)) return ['dsh', ...start]
  return [process.execPath, BIN, ...start]
}

/**
 * `env` as a client started outside npm sees it: `npx dsh` (npm exec, pnpm exec, a package script)
 * puts the project's `node_modules/.bin` first on PATH, which the client's own PATH lacks, so a
 * `dsh` found only there is not one the client would find.
 */
export function clientEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const dirs = (env.PATH ?? '').split(delimiter).filter((dir) => !/(^|[\\/])node_modules[\\/]\.bin[\\/]?$/.test(dir))
  return { ...env, PATH: dirs.join(delimiter) }
}

/** The executable `name` resolves to on PATH, as a shell would find it. */
export function which(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (name.includes('/')) return executable(name) ? name : undefined
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, name)
    if (executable(candidate)) return candidate
  }
  return undefined
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function same(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}
