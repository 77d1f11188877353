import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import type { ClientName, SetupOptions } from '../arguments'
import { child, type Edit, including, jsonEdit, tomlTableEdit } from './files'

/** The MCP server name every client knows dsh by; Claude Code names its tools mcp__dsh__<tool>. */
export const SERVER = 'dsh'
export const TOKEN_ENV = 'DSH_MCP_TOKEN'

export interface Place {
  /** The project directory (where the client runs, and the root of the files under stdio). */
  cwd: string
  home: string
  env: NodeJS.ProcessEnv
  /** argv that starts dsh over stdio (see command.ts). */
  command: string[]
}

export interface ClientSetup {
  edits: Edit[]
  /** What a headless run needs besides the files, printed after them. */
  notes: string[]
}

/** How the client reaches dsh, as read back from its config by `dsh doctor`. */
export type Reach =
  | { kind: 'stdio'; argv: string[]; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string>; tokenFrom?: string }

export interface ClientConfig {
  name: ClientName
  /** The files that may hold its dsh entry, most specific first. */
  files(place: Place): string[]
  setup(options: SetupOptions, place: Place): ClientSetup
  /** The dsh entry of a parsed config file, as the client will use it; undefined when absent. */
  read(file: string, text: string): { reach: Reach; problems: string[] } | undefined
}

const bearer = (template: string) => ({ Authorization: template })

const claude: ClientConfig = {
  name: 'claude-code',
  files: ({ cwd }) => [join(cwd, '.mcp.json')],
  setup(options, place) {
    const entry = options.transport === 'stdio'
      ? { type: 'stdio', command: place.command[0], args: place.command.slice(1) }
      : { type: 'http', url: options.url, headers: bearer(`Bearer \${${TOKEN_ENV}}`) }
    return {
      edits: [
        jsonEdit(join(place.cwd, '.mcp.json'), `mcpServers.${SERVER} (${options.transport})`, (value) => { child(value, 'mcpServers')[SERVER] = entry }),
        jsonEdit(join(place.cwd, '.claude/settings.json'), `permissions.allow mcp__${SERVER}, enabledMcpjsonServers ${SERVER}`, (value) => {
          including(child(value, 'permissions'), 'allow', `mcp__${SERVER}`)
          including(value, 'enabledMcpjsonServers', SERVER)
        }),
      ],
      // Project settings count only in a workspace the user has trusted, and `-p` prompts nobody.
      // Both flags take several values: the prompt goes first, or it is read as one of them.
      notes: [`headless: claude -p "<prompt>" --mcp-config .mcp.json --allowedTools mcp__${SERVER} (a project's .mcp.json and .claude/settings.json are used only once you trust the folder in an interactive claude)`],
    }
  },
  read(_file, text) {
    const entry = (JSON.parse(text) as Record<string, any>).mcpServers?.[SERVER]
    if (entry === undefined) return undefined
    if (entry.type === 'http' || entry.url !== undefined) return { reach: { kind: 'http', url: entry.url, ...expand(entry.headers, /\$\{(\w+)\}/g) }, problems: [] }
    return { reach: { kind: 'stdio', argv: [entry.command, ...(entry.args ?? [])] }, problems: [] }
  },
}

const codex: ClientConfig = {
  name: 'codex',
  files: ({ home, env }) => [join(env.CODEX_HOME || join(home, '.codex'), 'config.toml')],
  setup(options, place) {
    const file = codex.files(place)[0]!
    // required: codex stops with an error instead of running the model without dsh's tools.
    // approve: its writers run without a prompt, which `codex exec` could not answer.
    const common = { required: true, default_tools_approval_mode: 'approve' }
    const body = options.transport === 'stdio'
      ? { command: place.command[0]!, args: place.command.slice(1), ...common }
      : { url: options.url, bearer_token_env_var: TOKEN_ENV, ...common }
    return { edits: [tomlTableEdit(file, `[mcp_servers.${SERVER}] (${options.transport}, required, approval approve)`, `mcp_servers.${SERVER}`, body)], notes: [] }
  },
  read(_file, text) {
    const entry = (parseToml(text) as Record<string, any>).mcp_servers?.[SERVER]
    if (entry === undefined) return undefined
    const problems: string[] = []
    if (entry.required !== true) problems.push('required = true is missing: codex then runs the model without dsh\'s tools when dsh is slow or fails')
    if (entry.default_tools_approval_mode !== 'approve') problems.push('default_tools_approval_mode = "approve" is missing: codex exec cancels every writing call')
    if (entry.url !== undefined) {
      const name = entry.bearer_token_env_var as string | undefined
      const headers: Record<string, string> = name === undefined ? {} : { Authorization: `Bearer ${process.env[name] ?? ''}` }
      return { reach: { kind: 'http', url: entry.url, headers, ...(name === undefined ? {} : { tokenFrom: name }) }, problems }
    }
    return { reach: { kind: 'stdio', argv: [entry.command, ...(entry.args ?? [])], cwd: entry.cwd }, problems }
  },
}

const gemini: ClientConfig = {
  name: 'gemini-cli',
  files: ({ cwd, home }) => [join(cwd, '.gemini/settings.json'), join(home, '.gemini/settings.json')],
  setup(options, place) {
    // trust: no confirmation per call, without which a headless run refuses every call.
    const entry = options.transport === 'stdio'
      ? { command: place.command[0], args: place.command.slice(1), trust: true }
      : { httpUrl: options.url, headers: bearer(`Bearer \${${TOKEN_ENV}}`), trust: true }
    return {
      edits: [jsonEdit(join(place.cwd, '.gemini/settings.json'), `mcpServers.${SERVER} (${options.transport}, trust)`, (value) => { child(value, 'mcpServers')[SERVER] = entry })],
      // A headless run refuses an untrusted folder outright, and only a trusted one reads .gemini/.
      notes: ['headless: GEMINI_CLI_TRUST_WORKSPACE=true gemini -p "<prompt>" (Gemini CLI reads a project\'s .gemini/settings.json only in a trusted folder, and a headless run stops in an untrusted one)'],
    }
  },
  read(_file, text) {
    const entry = (JSON.parse(text) as Record<string, any>).mcpServers?.[SERVER]
    if (entry === undefined) return undefined
    const problems = entry.trust === true ? [] : ['trust: true is missing: a headless gemini run refuses every dsh call']
    if (entry.httpUrl !== undefined) return { reach: { kind: 'http', url: entry.httpUrl, ...expand(entry.headers, /\$\{?(\w+)\}?/g) }, problems }
    return { reach: { kind: 'stdio', argv: [entry.command, ...(entry.args ?? [])], cwd: entry.cwd }, problems }
  },
}

const opencode: ClientConfig = {
  name: 'opencode',
  files: ({ cwd }) => [join(cwd, 'opencode.json')],
  setup(options, place) {
    // opencode 1.x: servers directly under `mcp`. oauth: false, or a 401 starts an OAuth flow.
    const entry = options.transport === 'stdio'
      ? { type: 'local', command: place.command, enabled: true }
      : { type: 'remote', url: options.url, oauth: false, headers: bearer(`Bearer {env:${TOKEN_ENV}}`), enabled: true }
    return {
      edits: [jsonEdit(join(place.cwd, 'opencode.json'), `mcp.${SERVER} (${options.transport})`, (value) => {
        value.$schema ??= 'https://opencode.ai/config.json'
        child(value, 'mcp')[SERVER] = entry
      })],
      notes: [],
    }
  },
  read(_file, text) {
    const entry = (JSON.parse(text) as Record<string, any>).mcp?.[SERVER]
    if (entry === undefined) return undefined
    const problems = entry.enabled === false ? ['enabled is false: opencode does not start it'] : []
    if (entry.type === 'remote') {
      if (entry.oauth !== false) problems.push('oauth: false is missing: a refused token starts an OAuth flow dsh does not offer')
      return { reach: { kind: 'http', url: entry.url, ...expand(entry.headers, /\{env:(\w+)\}/g) }, problems }
    }
    return { reach: { kind: 'stdio', argv: entry.command ?? [] }, problems }
  },
}

export const CLIENT_CONFIGS: Readonly<Record<ClientName, ClientConfig>> = { 'claude-code': claude, codex, 'gemini-cli': gemini, opencode }

/**
 * The headers with the client's own environment references filled in from this process's
 * environment, and the variable the token comes from (for `dsh doctor` to name).
 */
function expand(headers: Record<string, string> | undefined, reference: RegExp): { headers: Record<string, string>; tokenFrom?: string } {
  let tokenFrom: string | undefined
  const filled = Object.fromEntries(Object.entries(headers ?? {}).map(([key, value]) => [key, value.replace(reference, (_, name: string) => {
    tokenFrom = name
    return process.env[name] ?? ''
  })]))
  return { headers: filled, ...(tokenFrom === undefined ? {} : { tokenFrom }) }
}
