import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import toolsPlugin, { ToolError } from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import toolFsPlugin from '../src/index'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s?.dispose()
})

describe('loading', () => {
  it('registers read, write and edit with titles, MCP hints and strict JSON Schemas', async () => {
    s = await stack({ policy: true })
    expect(s.ctx.tools.list().filter((tool) => ['read', 'write', 'edit'].includes(tool.name))).toEqual([
      {
        name: 'edit',
        title: 'Edit file',
        description: expect.any(String),
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
        inputSchema: {
          type: 'object',
          properties: {
            file_path: { type: 'string', description: expect.any(String) },
            old_string: { type: 'string', description: expect.any(String) },
            new_string: { type: 'string', description: expect.any(String) },
            replace_all: { type: 'boolean', default: false, description: expect.any(String) },
          },
          required: ['file_path', 'old_string', 'new_string'],
          additionalProperties: false,
        },
      },
      {
        name: 'read',
        title: 'Read file',
        description: expect.stringContaining('cat -n'),
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        inputSchema: {
          type: 'object',
          properties: {
            file_path: { type: 'string', description: expect.any(String) },
            offset: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: expect.any(String) },
            limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: expect.any(String) },
            column: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: expect.any(String) },
            pages: { type: 'string', description: expect.stringContaining('PDF only') },
          },
          required: ['file_path'],
          additionalProperties: false,
        },
      },
      {
        name: 'write',
        title: 'Write file',
        description: expect.any(String),
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        inputSchema: {
          type: 'object',
          properties: { file_path: { type: 'string', description: expect.any(String) }, content: { type: 'string', description: expect.any(String) } },
          required: ['file_path', 'content'],
          additionalProperties: false,
        },
      },
    ])
  })

  it('registers multi_edit, glob, grep and list by default, with the argument names models know', async () => {
    s = await stack({ policy: true })
    const listed = Object.fromEntries(s.ctx.tools.list().map((tool) => [tool.name, tool.inputSchema as { properties: object; required?: string[] }]))
    expect(Object.keys(listed)).toEqual(['edit', 'glob', 'grep', 'list', 'multi_edit', 'read', 'write'])
    expect(Object.keys(listed.multi_edit!.properties)).toEqual(['file_path', 'edits'])
    expect(Object.keys(listed.glob!.properties)).toEqual(['pattern', 'path', 'include_ignored', 'offset'])
    expect(Object.keys(listed.grep!.properties)).toEqual(['pattern', 'path', 'glob', 'output_mode', 'case_insensitive', 'context', 'include_ignored', 'offset'])
    expect(Object.keys(listed.list!.properties)).toEqual(['path', 'depth', 'ignore', 'include_ignored', 'offset'])
    expect(listed.grep!.required).toEqual(['pattern'])
  })

  it('leaves out the discovery tools and multi_edit when the config turns them off', async () => {
    s = await stack({ policy: true, config: { discoveryTools: false, multiEdit: false } })
    expect(s.ctx.tools.list().map((tool) => tool.name)).toEqual(['edit', 'read', 'write'])
  })

  it('adds its rules to the system prompt', async () => {
    s = await stack({ policy: true })
    expect(s.ctx.systemPrompt.render()).toContain('Show a file with the dsh `read` tool before you change or replace it')
  })

  it('waits for ctx.fs and unregisters its tools when the provider goes away', async () => {
    s = await stack({ policy: false })
    const root = new Context()
    await root.plugin(toolsPlugin)
    await root.plugin(toolFsPlugin)
    expect(root.tools.list()).toEqual([])
    const provider = await root.plugin(LocalFileSystem, { cwd: s.dir })
    await new Promise((resolve) => setTimeout(resolve, 0))
    // The same tools as in a stack that loaded the provider first.
    expect(root.tools.list().map((tool) => tool.name)).toEqual(s.ctx.tools.list().map((tool) => tool.name))
    await provider.dispose()
    expect(root.tools.list()).toEqual([])
    expect(root.systemPrompt.render()).toBe('')
    // A provider that comes back brings every tool back once (a second registration would throw).
    await root.plugin(LocalFileSystem, { cwd: s.dir })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(root.tools.list().map((tool) => tool.name)).toEqual(s.ctx.tools.list().map((tool) => tool.name))
  })

  it('rejects a bad config with a validation error', async () => {
    const root = new Context()
    await expect(root.plugin(toolFsPlugin, { readLimit: 0 })).rejects.toThrow(/readLimit/)
  })
})

describe('arguments', () => {
  it('answers a camelCase argument with the snake_case name to use', async () => {
    s = await stack({ policy: true })
    const result = await s.call('edit', { file_path: 'a.txt', old_string: 'a', new_string: 'b', replaceAll: true })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.content[0]!.text).toBe('Unknown argument "replaceAll" for the dsh `edit` tool; did you mean replace_all?\nValid arguments: file_path, old_string, new_string, replace_all.\n'
      + 'Retry with: {"file_path":"a.txt","old_string":"a","new_string":"b","replace_all":true}')
  })

  it('answers the editor family\'s path with file_path and the call that works, and changes no file', async () => {
    s = await stack({ policy: true })
    const result = await s.call('read', { path: 'a.txt', offset: 2 })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.content[0]!.text).toBe('Unknown argument "path" for the dsh `read` tool; did you mean file_path?\nValid arguments: file_path, offset, limit, column, pages.\n'
      + 'Retry with: {"file_path":"a.txt","offset":2}')
    expect(s.log.calls).toEqual([])
  })

  it('ignores Gemini CLI\'s wait_for_previous and still does the work', async () => {
    s = await stack({ policy: true })
    expect((await s.call('write', { file_path: 'a.txt', content: 'x\n', wait_for_previous: true })).isError).toBe(false)
    expect(await readFile(s.path('a.txt'), 'utf8')).toBe('x\n')
  })

  it('says which argument has the wrong type', async () => {
    s = await stack({ policy: true })
    expect(await s.text('read', { file_path: 'a.txt', offset: '5' })).toBe('Argument "offset" must be a number, got the string "5".')
    expect(await s.text('write', { file_path: 'a.txt' })).toBe('Missing required argument "content" (expected a string).')
    expect(s.log.calls).toEqual([])
  })
})

describe('the tools/execute waterfall', () => {
  it('lets a permission hook refuse a write before the provider is asked', async () => {
    s = await stack({ policy: true })
    s.ctx.on('tools/execute', async (exec, input, next) => {
      if (exec.name === 'write' && String((input as { file_path: string }).file_path).endsWith('.env')) {
        throw new ToolError('PERMISSION_DENIED', 'writing .env files is not allowed')
      }
      return next()
    })
    expect((await s.call('write', { file_path: '.env', content: 'SECRET=1' })).error).toEqual({ code: 'PERMISSION_DENIED', message: 'writing .env files is not allowed' })
    expect(s.log.calls).toEqual([])
    expect((await s.call('write', { file_path: 'ok.txt', content: 'fine' })).isError).toBe(false)
    expect(await readFile(s.path('ok.txt'), 'utf8')).toBe('fine')
  })
})

describe('the actor', () => {
  it('passes the whole execution as the actor of the fs/* events', async () => {
    s = await stack({ policy: false })
    const actors: unknown[] = []
    s.ctx.on('fs/write-intent', async (_target, actor, next) => { actors.push(actor); return next() })
    s.ctx.on('fs/observed', (_target, _observation, actor) => { actors.push(actor) })
    const controller = new AbortController()
    await s.ctx.tools.execute({ name: 'write', arguments: { file_path: 'a.txt', content: 'x' }, callId: 'call-7', signal: controller.signal, agent: { session: s.session } })
    expect(actors).toEqual([
      { callId: 'call-7', name: 'write', signal: controller.signal, agent: { session: s.session } },
      { callId: 'call-7', name: 'write', signal: controller.signal, agent: { session: s.session } },
    ])
  })

  it('does not touch the file system for a call whose signal already aborted', async () => {
    s = await stack({ policy: true })
    const controller = new AbortController()
    controller.abort()
    const result = await s.ctx.tools.execute({ name: 'write', arguments: { file_path: 'a.txt', content: 'x' }, signal: controller.signal })
    expect(result.error?.code).toBe('ABORTED')
    expect(s.log.calls).toEqual([])
  })
})
