import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it, vi } from 'vitest'
import { demo, runScript, type ToolResult } from '../src/demo'
import { seed } from '../src/demo-script'
import { DSH_BIN, requireBuild, runDsh, tempDir } from './dsh-process'

vi.setConfig({ testTimeout: 60_000 })

describe('dsh demo', () => {
  it('runs every scripted step as expected in process and returns 0', async () => {
    let transcript = ''
    const status = await demo((text) => { transcript += text })
    expect(transcript).not.toContain('!!')
    expect(status).toBe(0)
    // The shipped config's staleRefusalObserves: the refusal shows the current text and counts as a read.
    expect(transcript).toMatch(/> edit .*\n {3}< error FS_STALE_VERSION: \n.*has changed since it was read, so nothing was changed\. Its current text/)
    expect(transcript).toMatch(/> write .*\n {3}< error FS_STALE_VERSION: .*no longer exists, so nothing was changed/)
    expect(transcript).toMatch(/> write .*\n {3}< Created .*notes\.md/)
    expect(transcript).toMatch(/> write .*settings\.json.*\n {3}< error FS_NOT_OBSERVED: .*read the file, then retry/)
    expect(transcript).toContain('cat settings.json: { "theme": "dark" }')
    expect(transcript).toContain('Every step behaved as scripted.')
  })

  it('prints, step for step, the texts a client of `dsh start` gets for the same calls', async () => {
    requireBuild()
    let fromDemo = ''
    expect(await demo((text) => { fromDemo += text })).toBe(0)
    const demoRoot = /one model session in (\S+)/.exec(fromDemo)![1]!

    await using project = await tempDir()
    await seed(project.dir)
    const client = new Client({ name: 'demo-check', version: '0.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start'], cwd: project.dir, stderr: 'ignore' }))
    let fromStart = ''
    try {
      const call = async (name: string, args: Record<string, unknown>) => await client.callTool({ name, arguments: args }) as ToolResult
      expect(await runScript(project.dir, call, (text) => { fromStart += text })).toBe(0)
    } finally {
      await client.close()
    }
    const steps = (transcript: string, root: string) => transcript.slice(transcript.indexOf('\n1. ')).replaceAll(root, '<root>')
    expect(steps(fromDemo, demoRoot)).toBe(steps(fromStart, project.dir))
  })

  it('exits 0 as a command and prints the transcript on stdout', async () => {
    requireBuild()
    const run = await runDsh(['demo'], process.cwd())
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Every step behaved as scripted.')
  })
})
