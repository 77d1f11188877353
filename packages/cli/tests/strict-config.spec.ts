import E2BFileSystem from '@deepseek-ai/dsh-fs-e2b'
import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import mcp from '@deepseek-ai/dsh-mcp'
import toolFs from '@deepseek-ai/dsh-tool-fs'
import editor from '@deepseek-ai/dsh-tool-str-replace-editor'
import tools from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { requireBuild, runDsh, tempDir } from './dsh-process'

// A misspelt key must be refused by name, never silently ignored (the default would then apply).
const PLUGINS: [string, object, Record<string, unknown>][] = [
  ['dsh-fs-local', LocalFileSystem, {}],
  ['dsh-fs-e2b', E2BFileSystem, { sandboxId: 'unused' }],
  ['dsh-tools', tools, {}],
  ['dsh-tool-fs', toolFs, {}],
  ['dsh-tool-str-replace-editor', editor, {}],
  ['dsh-mcp', mcp, {}],
]

describe('every plugin\'s config schema', () => {
  it.each(PLUGINS)('%s refuses an unknown key, naming it', async (_, plugin, valid) => {
    // Untyped on purpose: the point is a key no plugin's type allows.
    const ctx = new Context()
    const load = ctx.plugin.bind(ctx) as (plugin: object, config: unknown) => Promise<unknown>
    await expect(load(plugin, { ...valid, readlimit: 10 })).rejects.toThrow('Unrecognized key: "readlimit"')
  })
})

describe('dsh start with a misspelt config key', () => {
  it('names the entry and the key, and changes nothing', async () => {
    requireBuild()
    await using temp = await tempDir()
    const file = join(temp.dir, 'agent.yml')
    const yaml = [
      '- id: tools',
      "  name: '@deepseek-ai/dsh-tools'",
      '- id: fs',
      "  name: '@deepseek-ai/dsh-fs-local'",
      '- id: tool-fs',
      "  name: '@deepseek-ai/dsh-tool-fs'",
      '  config:',
      '    readlimit: 10',
      '',
    ].join('\n')
    await writeFile(file, yaml)
    const run = await runDsh(['start', '--config', file], temp.dir)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('  entry "tool-fs" (@deepseek-ai/dsh-tool-fs) has an invalid config: Unrecognized key: "readlimit"\n')
    expect(await readFile(file, 'utf8')).toBe(yaml)
  }, 60_000)
})
