import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { requireBuild } from './dsh-process'

// The README's `pnpm start` and `pnpm demo`, run as a user runs them. On a built checkout neither
// builds; on a stale one the build's output goes to stderr, never to the MCP channel.

vi.setConfig({ testTimeout: 300_000 })

const REPO = fileURLToPath(new URL('../../../', import.meta.url))

function pnpm(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('pnpm', ['-C', REPO, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text
    // The answer to tools/list: hang up, as a client does when it is done.
    if (stdout.includes('"id":1,')) child.stdin.end()
  })
  child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text })
  child.stdin.write(input)
  if (input === '') child.stdin.end()
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

describe('the repository scripts', () => {
  it('pnpm start writes nothing but JSON-RPC messages on stdout and lists the tools', async () => {
    requireBuild()
    const line = (message: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`
    const run = await pnpm(['start'], line({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '0' } } })
      + line({ method: 'notifications/initialized' }) + line({ id: 1, method: 'tools/list' }))
    expect(run.code).toBe(0)
    const frames = run.stdout.split('\n').filter((text) => text !== '').map((text) => JSON.parse(text) as Record<string, any>)
    expect(frames.every((frame) => frame.jsonrpc === '2.0')).toBe(true)
    expect(frames.find((frame) => frame.id === 1)?.result.tools.map((tool: { name: string }) => tool.name)).toContain('edit')
    expect(run.stderr).toContain('transport  stdio')
  })

  it('pnpm demo prints the scripted session and exits 0', async () => {
    requireBuild()
    const run = await pnpm(['demo'], '')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Every step behaved as scripted.')
  })
})
