import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import iconv from 'iconv-lite'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, expect, it, vi } from 'vitest'
import { DSH_BIN, requireBuild, tempDir } from './dsh-process'

beforeAll(requireBuild)
vi.setConfig({ testTimeout: 60_000 })

type Result = { content: Array<{ type: string; text: string }>; isError?: boolean }

// The shipped cordis.yml turns detectEncodings on: a real MCP client of `dsh start` reads and edits
// a Shift_JIS file, and the bytes on disk stay Shift_JIS everywhere but in the replaced text.
it('reads and edits a Shift_JIS file byte-exact through dsh start over MCP', async () => {
  await using project = await tempDir()
  const text = '吾輩は猫である。名前はまだ無い。\r\nどこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\r\n'
  await writeFile(join(project.dir, 'neko.txt'), iconv.encode(text, 'shift_jis'))
  const client = new Client({ name: 'encodings-check', version: '0.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [DSH_BIN, 'start'], cwd: project.dir, stderr: 'ignore' }))
  try {
    const { tools } = await client.listTools()
    expect(Object.keys(tools.find((tool) => tool.name === 'edit')!.inputSchema.properties ?? {})).toContain('encoding')
    const read = await client.callTool({ name: 'read', arguments: { file_path: 'neko.txt' } }) as Result
    expect(read.isError ?? false).toBe(false)
    expect(read.content[0]!.text).toContain('     1\t吾輩は猫である。名前はまだ無い。')
    expect(read.content[0]!.text).toContain('[The file is in shift_jis, not UTF-8')
    const edit = await client.callTool({ name: 'edit', arguments: { file_path: 'neko.txt', old_string: '名前はまだ無い', new_string: '名前はタマ' } }) as Result
    expect(edit.isError ?? false).toBe(false)
    expect((await readFile(join(project.dir, 'neko.txt'))).equals(iconv.encode(text.replace('名前はまだ無い', '名前はタマ'), 'shift_jis'))).toBe(true)
  } finally {
    await client.close()
  }
})
