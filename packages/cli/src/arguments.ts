import { fileURLToPath } from 'node:url'
import { resolve } from 'node:path'

// Node built-ins only: bin/dsh.js parses the arguments through this module before anything heavy
// is imported (see early.ts).

/** The config `dsh start` boots without `--config`, shipped beside `lib/` and `src/`. */
export const DEFAULT_CONFIG = fileURLToPath(new URL('../cordis.yml', import.meta.url))

/** This installation's bin/dsh.js, what a client config runs. */
export const BIN = fileURLToPath(new URL('../bin/dsh.js', import.meta.url))

const DEFAULT_TIMEOUT_S = 60

/** The clients `dsh setup` writes a config for (see setup/clients.ts). */
export const CLIENTS = ['claude-code', 'codex', 'gemini-cli', 'opencode'] as const
export type ClientName = typeof CLIENTS[number]

export interface SetupOptions {
  client: ClientName
  transport: 'stdio' | 'http'
  /** The Streamable HTTP endpoint, for --http. */
  url: string
  /** An absolute config for `dsh start`, when not the shipped one. */
  configFile: string | undefined
  dryRun: boolean
}

export const DEFAULT_URL = 'http://127.0.0.1:3000/mcp'

export type Parsed =
  | { command: 'help' | 'version' | 'demo' | 'doctor' }
  | ({ command: 'setup' } & SetupOptions)
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
  if (command === 'doctor') {
    return args.length === 0 ? { command: 'doctor' } : { command: 'usage', message: `dsh doctor takes no arguments, got ${args.join(' ')}` }
  }
  if (command === 'setup') return parseSetup(args)
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

function parseSetup(args: string[]): Parsed {
  const client = args.shift()
  if (client === undefined || !(CLIENTS as readonly string[]).includes(client)) {
    return { command: 'usage', message: `dsh setup wants a client: ${CLIENTS.join(', ')}${client === undefined ? '' : `, got ${JSON.stringify(client)}`}` }
  }
  const options: SetupOptions = { client: client as ClientName, transport: 'stdio', url: DEFAULT_URL, configFile: undefined, dryRun: false }
  let urlGiven = false
  while (args.length > 0) {
    const flag = args.shift()!
    const [name, inline] = flag.startsWith('--') && flag.includes('=') ? [flag.slice(0, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)] : [flag, undefined]
    if (name === '--http' || name === '--dry-run') {
      if (inline !== undefined) return { command: 'usage', message: `${name} takes no value` }
      if (name === '--http') options.transport = 'http'
      else options.dryRun = true
      continue
    }
    if (name !== '--url' && name !== '--config') return { command: 'usage', message: `unknown option ${flag}` }
    const value = inline ?? args.shift()
    if (value === undefined || value === '') return { command: 'usage', message: `${name} needs a value` }
    if (name === '--config') {
      options.configFile = resolve(value)
    } else {
      if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) return { command: 'usage', message: `--url wants an http(s) URL, got ${value}` }
      options.url = value
      urlGiven = true
    }
  }
  if (urlGiven && options.transport !== 'http') return { command: 'usage', message: '--url goes with --http' }
  if (options.configFile !== undefined && options.transport === 'http') {
    return { command: 'usage', message: '--config goes with stdio: over --http you start dsh yourself, with its config' }
  }
  return { command: 'setup', ...options }
}
