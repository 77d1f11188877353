import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { describe, expect, it } from 'vitest'
import { ERROR_META_KEY } from '../src/index'
import { connectInMemory as connect, toolContext } from './fixtures'

describe('the MCP server over ctx.tools', () => {
  it('lists every registered tool by name with its JSON Schema as is', async () => {
    const ctx = await toolContext()
    const client = await connect({ tools: ctx.tools, session: {} })
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['fail', 'whoami'])
    expect(tools[1]!.inputSchema).toEqual(ctx.tools.list()[1]!.inputSchema)
    expect(tools[1]!.inputSchema).toMatchObject({ type: 'object', additionalProperties: false, properties: { note: { type: 'string' } } })
  })

  it('sends each tool\'s title, also inside annotations, and exactly the hints it declared', async () => {
    const ctx = await toolContext()
    const client = await connect({ tools: ctx.tools, session: {} })
    const { tools } = await client.listTools()
    expect(tools.map(({ name, title, annotations }) => ({ name, title, annotations }))).toEqual([
      { name: 'fail', title: 'Fail', annotations: { title: 'Fail' } },
      { name: 'whoami', title: 'Who am I', annotations: { title: 'Who am I', readOnlyHint: true, openWorldHint: false } },
    ])
  })

  it('runs a call that carries Gemini CLI\'s wait_for_previous as if it were not there', async () => {
    const ctx = await toolContext()
    const client = await connect({ tools: ctx.tools, session: {} })
    const result = await client.callTool({ name: 'whoami', arguments: { wait_for_previous: true } })
    expect(result.isError).toBeFalsy()
    expect(result.content).toEqual([{ type: 'text', text: 'session 1' }])
  })

  it('sends the rendered system prompt as the server instructions', async () => {
    const ctx = await toolContext()
    const client = await connect({ tools: ctx.tools, session: {}, instructions: ctx.systemPrompt.render() })
    expect(client.getInstructions()).toBe('Read a file before you edit it.')
  })

  it('runs every call of one server under the same session object', async () => {
    const ctx = await toolContext()
    const first = await connect({ tools: ctx.tools, session: {} })
    const second = await connect({ tools: ctx.tools, session: {} })
    const text = async (client: Client) => ((await client.callTool({ name: 'whoami', arguments: {} })).content as { text: string }[])[0]!.text
    expect([await text(first), await text(second), await text(first)]).toEqual(['session 1', 'session 2', 'session 1'])
  })

  it('returns a tool failure as isError with the error code in _meta', async () => {
    const ctx = await toolContext()
    const client = await connect({ tools: ctx.tools, session: {} })
    const result = await client.callTool({ name: 'fail', arguments: {} })
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([{ type: 'text', text: 'a.txt has not been read in this session: read the file, then retry' }])
    // Only the code: the message is the text already, and some clients show `_meta` to the model too.
    expect(result._meta).toEqual({ [ERROR_META_KEY]: { code: 'FS_NOT_OBSERVED' } })
  })

  it('answers an unknown argument with the runtime validation message, not a protocol error', async () => {
    const ctx = await toolContext()
    const client = await connect({ tools: ctx.tools, session: {} })
    const result = await client.callTool({ name: 'whoami', arguments: { nots: 'x' } })
    expect(result.isError).toBe(true)
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'INVALID_ARGUMENTS' })
    expect((result.content as { text: string }[])[0]!.text).toContain('note')
  })
})
