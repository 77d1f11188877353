import { fileURLToPath } from 'node:url'
import { resolve } from 'node:path'

// Node built-ins only: bin/dsh.js parses the arguments through this module before anything heavy
// is imported (see early.ts).

/** The config `dsh start` boots without `--config`, shipped beside `lib/` and `src/`. */
export const DEFAULT_CONFIG = fileURLToPath(new URL('../cordis.yml', import.meta.url))

const DEFAULT_TIMEOUT_S = 60

export type Parsed =
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
