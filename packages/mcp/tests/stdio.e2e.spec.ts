import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { call, requireBuild, startDsh, stdioClient, tempDir } from './dsh-process'
import { frameReader } from '../../cli/tests/frames'

beforeAll(requireBuild)
// Each test spawns a fresh `dsh start`; on a loaded CI machine booting takes seconds.
vi.setConfig({ testTimeout: 60_000 })

describe('dsh start over stdio, driven by the official MCP client', () => {
  it('lists the default tools with their JSON Schemas and sends instructions', async () => {
    await using temp = await tempDir()
    const { client, errors } = await stdioClient(temp.dir)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['edit', 'read', 'str_replace_editor', 'write']))
      const read = tools.find((tool) => tool.name === 'read')!
      expect(read.inputSchema).toMatchObject({ type: 'object', additionalProperties: false, required: ['file_path'] })
      expect(Object.keys(read.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['file_path', 'offset', 'limit']))
      expect(client.getInstructions()?.length ?? 0).toBeGreaterThan(0)
      expect(errors).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('finds files and edits them over MCP: glob, grep, then read and multi_edit', async () => {
    await using temp = await tempDir()
    await writeFile(join(temp.dir, 'a.ts'), 'const a = 1\nconst b = 2\n')
    const { client } = await stdioClient(temp.dir)
    try {
      expect(await call(client, 'glob', { pattern: '**/*.ts' })).toMatchObject({ ok: true, text: expect.stringContaining(join(temp.dir, 'a.ts')) })
      expect(await call(client, 'grep', { pattern: 'const b', output_mode: 'content' })).toMatchObject({ ok: true, text: expect.stringContaining('     2\tconst b = 2') })
      expect(await call(client, 'multi_edit', { file_path: 'a.ts', edits: [{ old_string: 'a = 1', new_string: 'a = 10' }] })).toMatchObject({ ok: false, code: 'FS_NOT_OBSERVED' })
      expect(await call(client, 'read', { file_path: 'a.ts' })).toMatchObject({ ok: true })
      expect(await call(client, 'multi_edit', { file_path: 'a.ts', edits: [{ old_string: 'a = 1', new_string: 'a = 10' }, { old_string: 'b = 2', new_string: 'b = 20' }] }))
        .toMatchObject({ ok: true })
      expect(await readFile(join(temp.dir, 'a.ts'), 'utf8')).toBe('const a = 10\nconst b = 20\n')
    } finally {
      await client.close()
    }
  })

  it('recovers from an external delete: stale write refused, re-read finds absence, write recreates', async () => {
    await using temp = await tempDir()
    const file = join(temp.dir, 'a.txt')
    await writeFile(file, 'one\ntwo\n')
    const { client } = await stdioClient(temp.dir)
    try {
      expect(await call(client, 'read', { file_path: 'a.txt' })).toMatchObject({ ok: true })
      await rm(file)
      expect(await call(client, 'write', { file_path: 'a.txt', content: 'three\n' })).toMatchObject({ ok: false, code: 'FS_STALE_VERSION' })
      await expect(readFile(file)).rejects.toMatchObject({ code: 'ENOENT' })
      expect(await call(client, 'read', { file_path: 'a.txt' })).toMatchObject({ ok: false, code: 'FS_NOT_FOUND' })
      expect(await call(client, 'write', { file_path: 'a.txt', content: 'three\n' })).toMatchObject({ ok: true })
      expect(await readFile(file, 'utf8')).toBe('three\n')
    } finally {
      await client.close()
    }
  })

  it('refuses to overwrite a file the session never read, leaving its bytes alone', async () => {
    await using temp = await tempDir()
    const file = join(temp.dir, 'b.txt')
    await writeFile(file, 'precious\r\n')
    const { client } = await stdioClient(temp.dir)
    try {
      const refused = await call(client, 'write', { file_path: 'b.txt', content: 'clobbered\n' })
      expect(refused).toMatchObject({ ok: false, code: 'FS_NOT_OBSERVED' })
      expect(refused.text).toContain('read the file, then retry')
      expect(await readFile(file, 'utf8')).toBe('precious\r\n')
    } finally {
      await client.close()
    }
  })

  it('keeps the files inside the working directory it was started in', async () => {
    await using temp = await tempDir()
    const { client } = await stdioClient(temp.dir)
    try {
      expect(await call(client, 'read', { file_path: '/etc/hostname' })).toMatchObject({ ok: false, code: 'FS_OUTSIDE_ROOT' })
    } finally {
      await client.close()
    }
  })

  it('logs only to stderr and exits when the client closes stdin', async () => {
    await using temp = await tempDir()
    const { client, stderr, errors } = await stdioClient(temp.dir)
    await client.listTools()
    const transport = client.transport as { pid?: number | null } | undefined
    expect(transport?.pid).toBeGreaterThan(0)
    await client.close()
    expect(errors).toEqual([])
    expect(stderr()).toContain('stopping: the client closed stdin')
    expect(stderr()).toMatch(/tools {6}.*\bread\b/)
    expect(stderr()).toContain('transport  stdio')
  })

  it('answers the client only once every entry has loaded, so a slow plugin\'s tools are listed', async () => {
    await using temp = await tempDir()
    const config = join(temp.dir, 'agent.yml')
    const late = fileURLToPath(new URL('./fixtures/late-tool.mjs', import.meta.url))
    // mcp comes before the slow entry: the client connects while late-tool is still starting.
    await writeFile(config, `- id: tools\n  name: '@deepseek-ai/dsh-tools'\n- id: mcp\n  name: '@deepseek-ai/dsh-mcp'\n- id: late\n  name: '${late}'\n`)
    const { client, stderr } = await stdioClient(temp.dir, ['--config', config])
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['late'])
      expect(stderr()).toContain('serving MCP over stdio, tools: late')
    } finally {
      await client.close()
    }
  })

  it('answers an 11 MiB write with an error naming the 10 MiB limit, writes nothing, and serves on', async () => {
    await using temp = await tempDir()
    const { client, stderr } = await stdioClient(temp.dir)
    try {
      const refused = client.callTool({ name: 'write', arguments: { file_path: 'big.txt', content: 'x'.repeat(11 * 1024 * 1024) } })
      await expect(refused).rejects.toBeInstanceOf(McpError)
      await expect(refused).rejects.toMatchObject({ code: -32600, data: { maxMessageBytes: 10 * 1024 * 1024 } })
      await expect(refused).rejects.toThrow('limit of 10485760 bytes (maxMessageBytes in its mcp config)')
      await expect(readFile(join(temp.dir, 'big.txt'))).rejects.toMatchObject({ code: 'ENOENT' })
      expect(await call(client, 'write', { file_path: 'small.txt', content: 'ok\n' })).toMatchObject({ ok: true })
      expect(await readFile(join(temp.dir, 'small.txt'), 'utf8')).toBe('ok\n')
      expect(stderr()).toContain('over dsh\'s limit of 10485760 bytes')
    } finally {
      await client.close()
    }
  })
})

const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`
const oversize = `${JSON.stringify({ method: 'tools/call', params: { name: 'write', arguments: { file_path: 'big.txt', content: 'x'.repeat(11 * 1024 * 1024) } }, jsonrpc: '2.0', id: 1 })}\n`

describe('dsh start over stdio exits when stdin closes', () => {
  it('after an oversize message was refused', async () => {
    await using temp = await tempDir()
    const dsh = await startDsh([], temp.dir)
    const next = frameReader(dsh.child.stdout!)
    dsh.child.stdin!.write(initialize)
    expect((await next()).id).toBe(0)
    dsh.child.stdin!.write(oversize)
    expect(await next()).toMatchObject({ id: 1, error: { code: -32600 } })
    dsh.child.stdin!.end()
    const run = await dsh.done
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('stopping: the client closed stdin')
  })

  it('in the middle of an oversize message', async () => {
    await using temp = await tempDir()
    const dsh = await startDsh([], temp.dir)
    const next = frameReader(dsh.child.stdout!)
    dsh.child.stdin!.write(initialize)
    expect((await next()).id).toBe(0)
    dsh.child.stdin!.end(oversize.slice(0, 10.5 * 1024 * 1024))
    const run = await dsh.done
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('stopping: the client closed stdin')
  })

  it('in the middle of an ordinary message, before initialize', async () => {
    await using temp = await tempDir()
    const dsh = await startDsh([], temp.dir)
    dsh.child.stdin!.end(initialize.slice(0, 40))
    const run = await dsh.done
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
  })
})
