import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { fileURLToPath } from 'node:url'
import { DEFAULT_CONFIG } from '../src/cli'
import { DEFAULT_CONFIG_FILE, requireBuild, runNode, startDsh, tempDir } from './dsh-process'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

describe('the default cordis.yml', () => {
  it('is the file dsh start uses without --config', () => {
    expect(DEFAULT_CONFIG).toBe(DEFAULT_CONFIG_FILE)
  })

  it('boots through the real loader with every entry given an explicit id', async () => {
    const text = await readFile(DEFAULT_CONFIG_FILE, 'utf8')
    const entries = text.split('\n').filter((line) => line.startsWith('- '))
    expect(entries).toEqual(['- id: fs', '- id: policy', '- id: tools', '- id: tool-fs', '- id: str-replace-editor', '- id: mcp'])
    await using temp = await tempDir()
    const { child, stderr, done } = await startDsh([], temp.dir)
    expect(stderr()).toContain(`files      @deepseek-ai/dsh-fs-local  (root ${temp.dir}, cwd ${temp.dir})\n`)
    // The file tools are there; another tool plugin in the default config must not break this line.
    for (const tool of ['edit', 'read', 'str_replace_editor', 'write']) expect(stderr()).toMatch(new RegExp(`^ {2}tools {6}.*\\b${tool}\\b`, 'm'))
    expect(stderr()).toContain('transport  stdio\n')
    child.stdin!.end()
    const run = await done
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('stopping: the client closed stdin')
    expect(await readFile(DEFAULT_CONFIG_FILE, 'utf8')).toBe(text)
  })

  // The one test that pins the whole default tool list, on purpose: it is what every MCP client
  // of the shipped config is offered. Adding or dropping a default tool is a decision to make here
  // (and in docs/tools.md); every other test asks only for the tools it uses.
  it('offers exactly the default tool list', async () => {
    await using temp = await tempDir()
    const { child, stderr, done } = await startDsh([], temp.dir)
    child.stdin!.end()
    await done
    expect(stderr().match(/^ {2}tools {6}(.*)$/m)?.[1]?.split(', ')).toEqual(['apply_patch', 'edit', 'glob', 'grep', 'list', 'multi_edit', 'read', 'str_replace_editor', 'write'])
  })

  it('stops cleanly on SIGTERM and on SIGINT', async () => {
    await using temp = await tempDir()
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const { child, done } = await startDsh([], temp.dir)
      child.kill(signal)
      const run = await done
      expect(run.code).toBe(0)
      expect(run.stderr).toContain(`stopping: received ${signal}`)
    }
  })
})

describe('the loader as dsh runs it', () => {
  it('never writes the config back, even for an entry without an id', async () => {
    await using temp = await tempDir()
    const file = join(temp.dir, 'cordis.yml')
    const yaml = "# keep me\n- name: '@deepseek-ai/dsh-tools'\n- id: policy\n  name: '@deepseek-ai/dsh-fs-policy'\n"
    await writeFile(file, yaml)
    // The stock loader would add the missing id, then mark the entry disposed behind its back as
    // disabled, both by rewriting the file (and dropping the comment).
    const run = await runNode([fileURLToPath(new URL('./fixtures/dispose-behind-back.mjs', import.meta.url)), file], temp.dir)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(await readFile(file, 'utf8')).toBe(yaml)
  })
})
