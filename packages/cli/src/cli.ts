import { fileURLToPath } from 'node:url'
import { resolve } from 'node:path'
import { HELP } from './help'
import { version } from './version'

/** The config `dsh start` boots without `--config`, shipped beside `lib/` and `src/`. */
export const DEFAULT_CONFIG = fileURLToPath(new URL('../cordis.yml', import.meta.url))

const DEFAULT_TIMEOUT_S = 60

type Parsed =
  | { command: 'help' | 'version' | 'demo' }
  | { command: 'start'; configFile: string; timeoutMs: number }
  | { command: 'usage'; message: string }

export function parseArguments(argv: readonly string[]): Parsed {
  const args = [...argv]
  if (args.length === 0 || args.some((arg) => arg === '-h' || arg === '--help' || arg === 'help')) return { command: 'help' }
  if (args.some((arg) => arg === '-v' || arg === '--version')) return { command: 'version' }
  const command = args.shift()
  if (command === 'demo') {
    return args.length === 0 ? { command: 'demo' } : { command: 'usage', message: `dsh demo takes no arguments, got ${args.join(' ')}` }
  }
  if (command !== 'start') return { command: 'usage', message: `unknown command ${JSON.stringify(command)}` }
  let configFile = DEFAULT_CONFIG
  let timeoutMs = DEFAULT_TIMEOUT_S * 1000
  while (args.length > 0) {
    const flag = args.shift()!
    const [name, inline] = flag.startsWith('--') && flag.includes('=') ? [flag.slice(0, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)] : [flag, undefined]
    if (name !== '--config' && name !== '--timeout') return { command: 'usage', message: `unknown option ${flag}` }
    const value = inline ?? args.shift()
    if (value === undefined || value === '') return { command: 'usage', message: `${name} needs a value` }
    if (name === '--config') {
      configFile = resolve(value)
    } else {
      const seconds = Number(value)
      if (!Number.isFinite(seconds) || seconds <= 0) return { command: 'usage', message: `--timeout wants a positive number of seconds, got ${value}` }
      timeoutMs = seconds * 1000
    }
  }
  return { command: 'start', configFile, timeoutMs }
}

/** Runs one `dsh` invocation and returns its exit status. */
export async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseArguments(argv)
  switch (parsed.command) {
    case 'help':
      process.stdout.write(HELP)
      return 0
    case 'version':
      process.stdout.write(`${version}\n`)
      return 0
    case 'usage':
      process.stderr.write(`dsh: ${parsed.message}\nRun dsh --help for usage.\n`)
      return 2
    case 'demo': {
      // Loaded on demand: `dsh start` should not pay for importing the demo's plugins itself.
      const { demo } = await import('./demo')
      return demo()
    }
    case 'start': {
      const { start } = await import('./start')
      return start(parsed)
    }
  }
}
