import { type Stack, stack } from '@deepseek-ai/dsh-test-kit'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { call } from './dsh-process'
import { connectInMemory } from './fixtures'

/** The real stack in process (rooted local files, policy, fs tools) behind one MCP server per session. */
async function served(): Promise<Stack & { connect: () => Promise<Client> }> {
  const s = await stack({ rooted: true, tools: ['tool-fs'] })
  return Object.assign(s, { connect: () => connectInMemory({ tools: s.ctx.tools, session: {}, instructions: s.ctx.systemPrompt.render() }) })
}

describe('the MCP server over the real file tools, in process', () => {
  it('runs the recovery chain after an external delete', async () => {
    await using temp = await served()
    const file = join(temp.dir, 'a.txt')
    await writeFile(file, 'one\n')
    const client = await temp.connect()
    expect(await call(client, 'read', { file_path: 'a.txt' })).toMatchObject({ ok: true })
    await rm(file)
    expect(await call(client, 'write', { file_path: 'a.txt', content: 'two\n' })).toMatchObject({ ok: false, code: 'FS_STALE_VERSION' })
    expect(await call(client, 'read', { file_path: 'a.txt' })).toMatchObject({ ok: false, code: 'FS_NOT_FOUND' })
    expect(await call(client, 'write', { file_path: 'a.txt', content: 'two\n' })).toMatchObject({ ok: true })
    expect(await readFile(file, 'utf8')).toBe('two\n')
  })

  it('keeps two MCP sessions apart: a read in one does not allow an edit in the other', async () => {
    await using temp = await served()
    await writeFile(join(temp.dir, 'b.txt'), 'x\n')
    const { connect: session } = temp
    const [a, b] = [await session(), await session()]
    expect(await call(a, 'read', { file_path: 'b.txt' })).toMatchObject({ ok: true })
    expect(await call(b, 'edit', { file_path: 'b.txt', old_string: 'x', new_string: 'y' })).toMatchObject({ ok: false, code: 'FS_NOT_OBSERVED' })
    expect(await call(a, 'edit', { file_path: 'b.txt', old_string: 'x', new_string: 'y' })).toMatchObject({ ok: true })
    expect(await readFile(join(temp.dir, 'b.txt'), 'utf8')).toBe('y\n')
  })

  it('sends the fs tools\' prompt section as instructions', async () => {
    await using temp = await served()
    const { ctx, connect: session } = temp
    const client = await session()
    expect(client.getInstructions()).toBe(ctx.systemPrompt.render())
    expect(client.getInstructions()).toMatch(/read/i)
  })
})
