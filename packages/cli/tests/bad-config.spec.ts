import { readFile, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { requireBuild, runDsh, tempDir } from './dsh-process'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

// "Within seconds" on a loaded two-core CI machine; a hang is killed at 30 s by runDsh and fails.
const PROMPT_MS = 20_000
const FOOTER = 'Fix the config and run dsh start again; the config file was not modified.\n'

/** Starts dsh on `yaml`, then checks the shared promises: status 1, prompt, file bytes untouched. */
async function startBroken(yaml: string): Promise<string> {
  await using temp = await tempDir()
  const file = join(temp.dir, 'agent.yml')
  await writeFile(file, yaml)
  const run = await runDsh(['start', '--config', file], temp.dir)
  expect(run.code).toBe(1)
  expect(run.ms).toBeLessThan(PROMPT_MS)
  expect(run.stdout).toBe('')
  expect(await readFile(file, 'utf8')).toBe(yaml)
  expect(run.stderr).toContain(`dsh: cannot start ${file}\n`)
  expect(run.stderr.endsWith(FOOTER)).toBe(true)
  return run.stderr
}

describe('dsh start on a broken config', () => {
  it('names the entry whose package is not installed', async () => {
    const stderr = await startBroken([
      '# the comment must survive',
      '- id: tools',
      "  name: '@deepseek-ai/dsh-tools'",
      '- id: lint',
      "  name: '@deepseek-ai/dsh-no-such-package'",
      '',
    ].join('\n'))
    expect(stderr).toContain('  entry "lint" (@deepseek-ai/dsh-no-such-package) cannot load package @deepseek-ai/dsh-no-such-package: it is not installed')
  })

  it('names the entry and every field its config schema refuses', async () => {
    const stderr = await startBroken([
      '- id: tools',
      "  name: '@deepseek-ai/dsh-tools'",
      '- id: mcp',
      "  name: '@deepseek-ai/dsh-mcp'",
      '  config:',
      '    transport: carrier-pigeon',
      '    prot: 3000',
      '',
    ].join('\n'))
    expect(stderr).toContain('  entry "mcp" (@deepseek-ai/dsh-mcp) has an invalid config: Invalid option: expected one of "stdio"|"http" (at transport); Unrecognized key: "prot"\n')
  })

  it('names the entry whose plugin fails while starting, without a duplicate stack trace', async () => {
    const busy: Server = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const port = (busy.address() as { port: number }).port
    try {
      const stderr = await startBroken([
        '- id: tools',
        "  name: '@deepseek-ai/dsh-tools'",
        '- id: mcp',
        "  name: '@deepseek-ai/dsh-mcp'",
        `  config: { transport: http, port: ${port} }`,
        '',
      ].join('\n'))
      expect(stderr).toContain(`  entry "mcp" (@deepseek-ai/dsh-mcp) failed to start: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`)
      expect(stderr).not.toContain('at Server.setupListenHandle')
    } finally {
      busy.close()
    }
  })

  it('names the entry that waits for a service no entry provides, instead of starting half-working', async () => {
    const stderr = await startBroken([
      '- id: tools',
      "  name: '@deepseek-ai/dsh-tools'",
      '- id: tool-fs',
      "  name: '@deepseek-ai/dsh-tool-fs'",
      '',
    ].join('\n'))
    expect(stderr).toContain('  entry "tool-fs" (@deepseek-ai/dsh-tool-fs) waits for service fs, which no running entry provides\n')
  })

  it('reports YAML that does not parse, with its position', async () => {
    const stderr = await startBroken('- id: a\n  name: [unclosed\n')
    expect(stderr).toContain('  cannot read the config: unexpected end of the stream within a flow collection (3:1)')
  })

  it('reports a file that is not a list of entries', async () => {
    const stderr = await startBroken('fs: local\n')
    expect(stderr).toContain('  the config must be a YAML list of entries ({ id, name, config })\n')
    expect(stderr).not.toContain('unexpected error')
  })

  it('reports a config file that does not exist', async () => {
    await using temp = await tempDir()
    const run = await runDsh(['start', '--config', 'absent.yml'], temp.dir)
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(`dsh: cannot start ${join(temp.dir, 'absent.yml')}\n  config file not found\n${FOOTER}`)
  })
})
