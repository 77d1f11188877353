import { describe, expect, it, vi } from 'vitest'
import { demo } from '../src/demo'
import { requireBuild, runDsh } from './dsh-process'

vi.setConfig({ testTimeout: 60_000 })

describe('dsh demo', () => {
  it('runs every scripted step as expected in process and returns 0', async () => {
    let transcript = ''
    const status = await demo((text) => { transcript += text })
    expect(transcript).not.toContain('!!')
    expect(status).toBe(0)
    expect(transcript).toMatch(/> edit .*\n {3}< error FS_STALE_VERSION: .*re-read the file, then retry/)
    expect(transcript).toMatch(/> write .*\n {3}< error FS_STALE_VERSION: /)
    expect(transcript).toMatch(/> read .*\n {3}< error FS_NOT_FOUND: /)
    expect(transcript).toMatch(/> write .*\n {3}< Created .*notes\.md/)
    expect(transcript).toMatch(/> write .*settings\.json.*\n {3}< error FS_NOT_OBSERVED: .*read the file, then retry/)
    expect(transcript).toContain('cat settings.json: { "theme": "dark" }')
    expect(transcript).toContain('Every step behaved as scripted.')
  })

  it('exits 0 as a command and prints the transcript on stdout', async () => {
    requireBuild()
    const run = await runDsh(['demo'], process.cwd())
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Every step behaved as scripted.')
  })
})
