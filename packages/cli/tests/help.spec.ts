import { describe, expect, it, vi } from 'vitest'
import { parseArguments } from '../src/cli'
import { runDsh, requireBuild } from './dsh-process'

vi.setConfig({ testTimeout: 60_000 })

describe('dsh --help', () => {
  it('documents every command, option, the default config and how to add dsh to an MCP client', async () => {
    requireBuild()
    const run = await runDsh(['--help'], process.cwd())
    expect(run.code).toBe(0)
    for (const text of ['dsh start [--config <file>]', 'dsh demo', '--timeout <seconds>', 'fs-local', 'fs-policy',
      'tool-str-replace-editor', 'MCP over stdio', 'SIGINT', 'transport: http', 'claude mcp add dsh -- dsh start', '"mcpServers"', 'dsh setup <client>', 'dsh doctor', 'claude-code', 'gemini-cli', 'opencode', '--dry-run']) {
      expect(run.stdout).toContain(text)
    }
    expect(run.stderr).toBe('')
  })

  it('rejects an unknown command with usage status 2 on stderr', async () => {
    requireBuild()
    const run = await runDsh(['serve'], process.cwd())
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe('dsh: unknown command "serve"\nRun dsh --help for usage.\n')
  })
})

describe('argument parsing', () => {
  it('resolves --config against the working directory and reads --timeout in seconds', () => {
    expect(parseArguments(['start', '--config', 'x.yml', '--timeout=2.5'])).toEqual({ command: 'start', configFile: `${process.cwd()}/x.yml`, timeoutMs: 2500 })
  })

  it('says which option lacks a value or is unknown', () => {
    expect(parseArguments(['start', '--config'])).toEqual({ command: 'usage', message: '--config needs a value' })
    expect(parseArguments(['start', '--root', '.'])).toEqual({ command: 'usage', message: 'unknown option --root' })
    expect(parseArguments(['start', '--timeout', '0'])).toEqual({ command: 'usage', message: '--timeout wants a positive number of seconds, got 0' })
  })
})
