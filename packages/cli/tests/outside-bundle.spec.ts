import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_CONFIG_FILE, DSH_BIN, requireBuild, tempDir } from './dsh-process'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

const OUTSIDE = fileURLToPath(new URL('./fixtures/fs-local-outside-bundle.mjs', import.meta.url))

describe('a provider loaded from outside dsh\'s bundle', () => {
  it('serves the bundled tools, and its FsError codes reach the client (a second copy of dsh-fs is fine)', async () => {
    await using temp = await tempDir()
    // The default config with only the fs entry's name changed.
    const config = (await readFile(DEFAULT_CONFIG_FILE, 'utf8')).replace("name: '@deepseek-ai/dsh-fs-local'", `name: ${JSON.stringify(OUTSIDE)}`)
    expect(config).toContain(OUTSIDE)
    await writeFile(join(temp.dir, 'agent.yml'), config)
    await writeFile(join(temp.dir, 'a.txt'), 'one\n')
    const client = new Client({ name: 'outside-bundle', version: '0.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start', '--config', 'agent.yml'], cwd: temp.dir, stderr: 'ignore' }))
    try {
      const edit = { name: 'edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } }
      const read = await client.callTool({ name: 'read', arguments: { file_path: 'a.txt' } })
      expect(read.isError).toBeFalsy()
      await writeFile(join(temp.dir, 'a.txt'), 'one, changed meanwhile\n')
      // Thrown by the outside copy's provider, recognised by the bundled tool layer by its code.
      const stale = await client.callTool(edit)
      expect(stale.isError).toBe(true)
      expect((stale._meta as Record<string, { code: string }>)['ai.deepseek.dsh/error']!.code).toBe('FS_STALE_VERSION')
      expect(await readFile(join(temp.dir, 'a.txt'), 'utf8')).toBe('one, changed meanwhile\n')
    } finally {
      await client.close()
    }
  })
  it('is found in the node_modules beside the config file, though dsh is installed elsewhere', async () => {
    await using temp = await tempDir()
    // A package of the user's own, installed in their project only (not where dsh is).
    const pkg = join(temp.dir, 'node_modules', 'my-dsh-provider')
    await mkdir(pkg, { recursive: true })
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'my-dsh-provider', type: 'module', exports: { '.': './index.mjs' } }))
    await writeFile(join(pkg, 'index.mjs'), `export * from ${JSON.stringify(OUTSIDE)}\nexport { default } from ${JSON.stringify(OUTSIDE)}\n`)
    const config = (await readFile(DEFAULT_CONFIG_FILE, 'utf8')).replace("name: '@deepseek-ai/dsh-fs-local'", 'name: my-dsh-provider')
    expect(config).toContain('name: my-dsh-provider')
    await writeFile(join(temp.dir, 'agent.yml'), config)
    await writeFile(join(temp.dir, 'a.txt'), 'one\n')
    const client = new Client({ name: 'project-provider', version: '0.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start', '--config', 'agent.yml'], cwd: temp.dir, stderr: 'ignore' }))
    try {
      const read = await client.callTool({ name: 'read', arguments: { file_path: 'a.txt' } })
      expect(read.isError).toBeFalsy()
      expect(JSON.stringify(read.content)).toContain('one')
    } finally {
      await client.close()
    }
  })
})
