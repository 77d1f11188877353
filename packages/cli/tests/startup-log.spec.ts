import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { requireBuild, runDsh, tempDir } from './dsh-process'

beforeAll(requireBuild)

/** A loopback port nothing listens on: connecting to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('dsh start when the filesystem provider fails to start', () => {
  it('names the failed entry and says no tools are served, instead of "serving MCP over stdio, tools: (none)"', async () => {
    await using temp = await tempDir()
    const file = join(temp.dir, 'agent.yml')
    // mcp comes first, so it is up (and would announce its tools) before the provider fails.
    await writeFile(file, [
      '- id: tools',
      "  name: '@deepseek-ai/dsh-tools'",
      '- id: mcp',
      "  name: '@deepseek-ai/dsh-mcp'",
      '- id: fs',
      "  name: '@deepseek-ai/dsh-fs-e2b'",
      `  config: { sandboxId: gone, debug: true, sandboxUrl: 'http://127.0.0.1:${await closedPort()}', requestTimeoutMs: 5000 }`,
      '- id: tool-fs',
      "  name: '@deepseek-ai/dsh-tool-fs'",
      '',
    ].join('\n'))
    const run = await runDsh(['start', '--config', file], temp.dir)
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/ {2}entry "fs" \(@deepseek-ai\/dsh-fs-e2b\) failed to start: /)
    expect(run.stderr).toContain('  no tools are served: dsh stops rather than serve part of the config\n')
    expect(run.stderr).not.toContain('serving MCP over stdio')
    expect(run.stderr).not.toContain('(none)')
  }, 60_000)
})

describe('dsh start when the Redis ledger cannot be reached', () => {
  it('fails the start with an error naming the URL and saying what to do', async () => {
    await using temp = await tempDir()
    const file = join(temp.dir, 'agent.yml')
    const url = `redis://127.0.0.1:${await closedPort()}/2`
    await writeFile(file, [
      '- id: fs',
      "  name: '@deepseek-ai/dsh-fs-local'",
      `  config: { cwd: '${temp.dir}', root: '${temp.dir}' }`,
      '- id: policy',
      "  name: '@deepseek-ai/dsh-fs-policy'",
      `  config: { ledger: '${url}', timeoutMs: 1000 }`,
      '- id: tools',
      "  name: '@deepseek-ai/dsh-tools'",
      '- id: tool-fs',
      "  name: '@deepseek-ai/dsh-tool-fs'",
      '- id: mcp',
      "  name: '@deepseek-ai/dsh-mcp'",
      '',
    ].join('\n'))
    const run = await runDsh(['start', '--config', file], temp.dir)
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/ {2}entry "policy" \(@deepseek-ai\/dsh-fs-policy\) failed to start: /)
    expect(run.stderr).toContain(`cannot reach the Redis ledger at ${url}`)
    expect(run.stderr).toContain('start Redis there, or set the policy\'s ledger to another store')
    expect(run.stderr).not.toContain('serving MCP over stdio')
  }, 60_000)
})
