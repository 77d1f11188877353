import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_CONFIG_FILE, DSH_BIN, requireBuild, runDsh, tempDir } from './dsh-process'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

/** The entries of the default cordis.yml, each with its indented lines. */
async function defaultEntries(): Promise<string[]> {
  return (await readFile(DEFAULT_CONFIG_FILE, 'utf8')).split(/^(?=- )/m).filter((chunk) => chunk.startsWith('- '))
}

/** What an MCP client sees of `dsh start ...args`: the tools, the instructions, and the text of one read. */
async function seenByClient(args: string[], cwd: string) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start', ...args], cwd, stderr: 'ignore' })
  const client = new Client({ name: 'plugin-order', version: '0.0.0' })
  await client.connect(transport)
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name)
    const read = await client.callTool({ name: 'read', arguments: { file_path: 'a.txt' } })
    return { tools, instructions: client.getInstructions(), read: read.content }
  } finally {
    await client.close()
  }
}

describe('dsh start with the entries of the default config in reverse order', () => {
  it('serves what the default config serves: every tool plugin registers once the services it waits for appear', async () => {
    await using temp = await tempDir()
    await writeFile(join(temp.dir, 'a.txt'), 'one\n')
    const file = join(temp.dir, 'reversed.yml')
    // mcp, then the tool families, then tools, the policy and the provider last.
    await writeFile(file, (await defaultEntries()).reverse().join(''))
    const usual = await seenByClient([], temp.dir)
    const reversed = await seenByClient(['--config', file], temp.dir)
    expect(usual.tools).toEqual(expect.arrayContaining(['edit', 'read', 'str_replace_editor', 'write']))
    expect(reversed).toEqual(usual)
  })

  it('names the missing service, instead of serving no tools, when no entry provides tools', async () => {
    await using temp = await tempDir()
    const file = join(temp.dir, 'no-tools.yml')
    const yaml = (await defaultEntries()).filter((entry) => !entry.startsWith('- id: tools\n')).reverse().join('')
    await writeFile(file, yaml)
    const run = await runDsh(['start', '--config', file], temp.dir)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('  entry "tool-fs" (@deepseek-ai/dsh-tool-fs) waits for service tools, systemPrompt, which no running entry provides\n')
    expect(run.stderr).toContain('  entry "mcp" (@deepseek-ai/dsh-mcp) waits for service tools, which no running entry provides\n')
    expect(run.stderr).not.toContain('serving MCP over stdio')
    expect(run.stderr).not.toContain('(none)')
    expect(await readFile(file, 'utf8')).toBe(yaml)
  })
})
