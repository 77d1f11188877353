import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import * as toolsModule from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { mkdir } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import * as mod from '../src/index'
import { editorFixture, type EditorFixture } from './fixture'

let f: EditorFixture
let toDispose: EditorFixture | undefined
afterEach(async () => {
  await toDispose?.dispose()
  toDispose = undefined
})

async function fixture(): Promise<EditorFixture> {
  return (toDispose = f = await editorFixture())
}

describe('loading', () => {
  it('waits for fs, tools and systemPrompt, and takes its tool and prompt section away when disposed', async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(mod.default ?? mod)
    await ctx.plugin(toolsModule.default ?? toolsModule)
    expect(ctx.tools.list()).toEqual([])
    await ctx.plugin(LocalFileSystem, {})
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(ctx.tools.list().map((tool) => tool.name)).toEqual(['str_replace_editor'])
    expect(ctx.systemPrompt.render()).toContain('# The dsh `str_replace_editor` tool')
    await fiber.dispose()
    expect(ctx.tools.list()).toEqual([])
    expect(ctx.systemPrompt.render()).toBe('')
  })

  it('lists the Anthropic argument names in a closed JSON Schema', async () => {
    await fixture()
    const [listing] = f.ctx.tools.list()
    const schema = listing!.inputSchema as { properties: Record<string, { enum?: string[] }>; required: string[]; additionalProperties: boolean }
    expect(Object.keys(schema.properties)).toEqual(['command', 'path', 'file_text', 'old_str', 'new_str', 'insert_line', 'view_range'])
    expect(schema.properties.command!.enum).toEqual(['view', 'create', 'str_replace', 'insert', 'undo_edit'])
    expect(schema.required).toEqual(['command', 'path'])
    expect(schema.additionalProperties).toBe(false)
  })

  it('rejects a bad config when loaded', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(mod.default ?? mod, { viewLimit: 0 })).rejects.toThrow(/viewLimit/)
  })
})

describe('arguments', () => {
  it('rejects an unknown argument before running, naming the one that was meant', async () => {
    await fixture()
    await f.put('a.txt', 'a\n')
    const result = await f.call({ command: 'str_replace', path: 'a.txt', old_string: 'a', new_str: 'b' })
    expect(result.error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: 'Unknown argument "old_string" for the dsh `str_replace_editor` tool; did you mean old_str?\n'
        + 'Valid arguments: command, path, file_text, old_str, new_str, insert_line, view_range.\n'
        + 'Retry with: {"command":"str_replace","path":"a.txt","old_str":"a","new_str":"b"}',
    })
    expect((await f.bytes('a.txt'))?.toString()).toBe('a\n')
  })

  it('rejects an unknown command', async () => {
    await fixture()
    const result = await f.call({ command: 'delete', path: 'a.txt' })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.error?.message).toContain('command')
  })
})

describe('annotations', () => {
  it('has a title, and hints that hold for its mutating commands', async () => {
    await fixture()
    const [listing] = f.ctx.tools.list()
    expect(listing).toMatchObject({
      title: 'Text editor',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    })
  })
})

describe('paths', () => {
  it('resolves relative paths against the session cwd', async () => {
    await fixture()
    await mkdir(f.at('sub'))
    await f.ok({ command: 'create', path: 'x.txt', file_text: 'in sub' }, { cwd: f.at('sub') })
    expect((await f.bytes('sub/x.txt'))?.toString()).toBe('in sub')
  })

  it('falls back to the provider cwd when the session has none', async () => {
    await fixture()
    await f.ok({ command: 'create', path: 'y.txt', file_text: 'top' }, {})
    expect((await f.bytes('y.txt'))?.toString()).toBe('top')
  })
})

describe('the system prompt', () => {
  it('tells the model to view before editing and that create makes new files only', async () => {
    await fixture()
    const text = f.ctx.systemPrompt.render()
    expect(text).toContain('View a file with the dsh `str_replace_editor` tool before you change it')
    expect(text).toContain('`create` only makes new files')
  })
})
