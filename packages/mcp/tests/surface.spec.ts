import { type Stack, stack, type StackPart } from '@deepseek-ai/dsh-test-kit'
import { bareToolMentions } from '@deepseek-ai/dsh-tools'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { call, requireBuild, stdioClient, tempDir } from './dsh-process'
import { connectInMemory } from './fixtures'

/**
 * What real clients need from `tools/list` and `tools/call` beyond the protocol: Gemini CLI's
 * control argument, Codex's annotations, a stable order, and instructions that stay right under
 * any client prefix. Driven by the official SDK client over the real stack in process.
 */
async function served(order?: StackPart[]): Promise<Stack & { client: Client }> {
  const s = await stack({ rooted: true, ...(order === undefined ? {} : { order }) })
  return Object.assign(s, { client: await connectInMemory({ tools: s.ctx.tools, session: {}, instructions: s.ctx.systemPrompt.render() }) })
}

// The tools these tests use; more may be listed (only cli default-config.spec pins the whole list).
const NAMES = ['edit', 'glob', 'grep', 'list', 'multi_edit', 'read', 'str_replace_editor', 'write']

describe('Gemini CLI\'s wait_for_previous', () => {
  it('is accepted and ignored by every tool, and the call does its work', async () => {
    await using temp = await served()
    const { client } = temp
    const wait = { wait_for_previous: true }
    expect(await call(client, 'write', { file_path: 'a.txt', content: 'one\n', ...wait })).toMatchObject({ ok: true })
    expect(await call(client, 'read', { file_path: 'a.txt', ...wait })).toMatchObject({ ok: true })
    expect(await call(client, 'edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two', ...wait })).toMatchObject({ ok: true })
    expect(await call(client, 'str_replace_editor', { command: 'view', path: 'a.txt', wait_for_previous: false })).toMatchObject({ ok: true })
    expect(await call(client, 'str_replace_editor', { command: 'str_replace', path: 'a.txt', old_str: 'two', new_str: 'three', ...wait }))
      .toMatchObject({ ok: true })
    expect(await readFile(join(temp.dir, 'a.txt'), 'utf8')).toBe('three\n')
  })

  it('leaves every other unknown argument refused, with the file untouched', async () => {
    await using temp = await served()
    await writeFile(join(temp.dir, 'a.txt'), 'one\n')
    const { client } = temp
    await call(client, 'read', { file_path: 'a.txt' })
    const refused = await call(client, 'edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two', replaceAll: true, wait_for_previous: true })
    expect(refused).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' })
    expect(refused.text).toContain('did you mean replace_all?')
    expect(await readFile(join(temp.dir, 'a.txt'), 'utf8')).toBe('one\n')
  })
})

describe('the other tool family\'s argument names', () => {
  it('lead from a refused call to the working one, on both families', async () => {
    await using temp = await served()
    await writeFile(join(temp.dir, 'a.txt'), 'one\n')
    const { client } = temp
    const read = await call(client, 'read', { path: 'a.txt' })
    expect(read).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' })
    expect(read.text).toContain('did you mean file_path?')
    const retry = JSON.parse(read.text.match(/^Retry with: (\{.*\})$/m)![1]!) as Record<string, unknown>
    expect(await call(client, 'read', retry)).toMatchObject({ ok: true })

    const view = await call(client, 'str_replace_editor', { command: 'str_replace', file_path: 'a.txt', old_string: 'one', new_string: 'two' })
    expect(view).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' })
    expect(view.text).toContain('Retry with: {"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two"}')
    expect(await readFile(join(temp.dir, 'a.txt'), 'utf8')).toBe('one\n')
  })
})

describe('annotations', () => {
  it('give every tool a title and all four MCP hints', async () => {
    await using temp = await served()
    const { tools: listed } = await temp.client.listTools()
    // Any tool, including one added later: a title and the four hints, each a boolean.
    for (const tool of listed) {
      expect(typeof tool.title, tool.name).toBe('string')
      const hint = expect.any(Boolean)
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: hint, destructiveHint: hint, idempotentHint: hint, openWorldHint: hint })
    }
    // The tools these tests know, with the hints they must carry (more tools may be listed).
    expect(Object.fromEntries(listed.map((tool) => [tool.name, { title: tool.title, ...tool.annotations }]))).toMatchObject({
      edit: { title: 'Edit file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      glob: { title: 'Find files by name', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      grep: { title: 'Search file contents', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      list: { title: 'List directory tree', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      multi_edit: { title: 'Edit file in several places', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      read: { title: 'Read file', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      str_replace_editor: { title: 'Text editor', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      write: { title: 'Write file', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    })
  })

  it('are truthful: read changes nothing, write again leaves the same bytes, edit again changes the file again', async () => {
    await using temp = await served()
    const file = join(temp.dir, 'a.txt')
    await writeFile(file, 'a\n')
    const { client } = temp
    const before = await stat(file, { bigint: true })
    expect(await call(client, 'read', { file_path: 'a.txt' })).toMatchObject({ ok: true })
    expect(await call(client, 'read', { file_path: 'a.txt' })).toMatchObject({ ok: true })
    const after = await stat(file, { bigint: true })
    expect([after.ino, after.mtimeNs, after.ctimeNs]).toEqual([before.ino, before.mtimeNs, before.ctimeNs])

    const write = { file_path: 'b.txt', content: 'same\r\n' }
    expect(await call(client, 'write', write)).toMatchObject({ ok: true })
    const once = await readFile(join(temp.dir, 'b.txt'))
    expect(await call(client, 'write', write)).toMatchObject({ ok: true })
    expect(await readFile(join(temp.dir, 'b.txt'))).toEqual(once)

    const edit = { file_path: 'a.txt', old_string: 'a', new_string: 'aa', replace_all: true }
    expect(await call(client, 'edit', edit)).toMatchObject({ ok: true })
    expect(await call(client, 'edit', edit)).toMatchObject({ ok: true })
    expect(await readFile(file, 'utf8')).toBe('aaaa\n')
  })
})

describe('the tool list', () => {
  it('comes in the same order whichever tool plugin loaded first', async () => {
    const names = async (s: { client: Client }) => (await s.client.listTools()).tools.map((tool) => tool.name)
    await using fsFirst = await served(['provider', 'policy', 'tools', 'tool-fs', 'str-replace-editor'])
    await using editorFirst = await served(['provider', 'policy', 'tools', 'str-replace-editor', 'tool-fs'])
    expect(await names(fsFirst)).toEqual(expect.arrayContaining(NAMES))
    expect(await names(editorFirst)).toEqual(await names(fsFirst))
  })
})

describe('the instructions and descriptions', () => {
  it('never name a tool bare, so they hold under any client prefix and cannot mean a client\'s built-in tool', async () => {
    await using temp = await served()
    const { client } = temp
    const { tools: listed } = await client.listTools()
    expect(listed.map((tool) => tool.name)).toEqual(expect.arrayContaining(NAMES))
    const texts: Record<string, string> = { instructions: client.getInstructions() ?? '' }
    for (const tool of listed) {
      texts[`${tool.name} description`] = tool.description ?? ''
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        texts[`${tool.name}.${name}`] = (property as { description?: string }).description ?? ''
      }
    }
    expect(texts.instructions).toContain('the dsh `read`, `write`, `edit` and `multi_edit` tools')
    expect(texts.instructions).toContain('mcp__dsh__read')
    const bare = Object.entries(texts).flatMap(([where, text]) => bareToolMentions(text, listed.map((tool) => tool.name)).map((hit) => `${where}: ${hit}`))
    expect(bare).toEqual([])
  })
})

describe('dsh start over stdio', () => {
  vi.setConfig({ testTimeout: 60_000 })

  it('lists the annotations and runs a call with wait_for_previous', async () => {
    requireBuild()
    await using temp = await tempDir()
    await writeFile(join(temp.dir, 'a.txt'), 'one\n')
    const { client } = await stdioClient(temp.dir)
    try {
      const { tools: listed } = await client.listTools()
      expect(listed.map((tool) => tool.name)).toEqual(expect.arrayContaining(NAMES))
      expect(listed.find((tool) => tool.name === 'read')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
      expect(await call(client, 'read', { file_path: 'a.txt', wait_for_previous: true })).toMatchObject({ ok: true })
      expect(bareToolMentions(client.getInstructions() ?? '', listed.map((tool) => tool.name))).toEqual([])
    } finally {
      await client.close()
    }
  })
})
