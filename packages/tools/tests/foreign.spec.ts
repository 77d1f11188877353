import { Context } from 'cordis'
import { beforeEach, expect, it } from 'vitest'
import { z } from 'zod'
import * as mod from '../src/index'
import { defineTool } from '../src/index'
// The words the tool families install (dsh-tool-text's); imported by path, as dsh-tools does not depend on it.
import { RUNTIME_WORDS } from '../../tool-text/src/runtime-words'

const plugin = mod.default ?? mod
let root: Context
const ran: string[] = []

const read = defineTool({
  name: 'read', title: 'Read', description: '', annotations: {}, foreignNames: ['read_file', 'view'],
  inputSchema: z.object({ file_path: z.string(), offset: z.number().optional() }),
  execute: (input) => { ran.push(input.file_path); return 'ok' },
})
const editor = defineTool({
  name: 'str_replace_editor', title: 'Editor', description: '', annotations: {},
  foreignNames: [{ name: 'view', args: { command: 'view' } }, { name: 'create', args: { command: 'create' } }],
  inputSchema: z.object({ command: z.string(), path: z.string(), file_text: z.string().optional() }),
  execute: () => 'ok',
})

beforeEach(async () => {
  ran.length = 0
  root = new Context()
  await root.plugin(plugin)
  await root.plugin({ inject: ['tools'], apply(ctx: Context) { ctx.tools.useWords(RUNTIME_WORDS); ctx.tools.register(read); ctx.tools.register(editor) } })
})

const answer = async (name: string, args: unknown) => {
  const result = await root.tools.execute({ name, arguments: args })
  expect(result.error?.code).toBe('UNKNOWN_TOOL')
  return result.content[0]!.text
}

it('answers a foreign tool name with the dsh tool and the arguments renamed, and runs nothing', async () => {
  expect(await answer('read_file', { path: 'a.txt', start_line: 3 })).toBe('"read_file" is not a dsh tool; the dsh `read` tool does this (path is file_path, start_line is offset). '
    + 'Call the dsh `read` tool with arguments {"file_path":"a.txt","offset":3}.')
  expect(ran).toEqual([])
})

it('takes a tool\'s own name in another case or spelling as foreign', async () => {
  expect(await answer('Read', { file_path: 'a.txt' })).toBe('"Read" is not a dsh tool; the dsh `read` tool does this. Call the dsh `read` tool with arguments {"file_path":"a.txt"}.')
})

it('gives a name two tools claim to the one whose arguments the call already uses, with the arguments the name implies', async () => {
  expect(await answer('view', { path: 'a.txt' })).toContain('Call the dsh `str_replace_editor` tool with arguments {"command":"view","path":"a.txt"}.')
  expect(await answer('view', { file_path: 'a.txt' })).toContain('Call the dsh `read` tool with arguments {"file_path":"a.txt"}.')
})

it('shows a long value as the name it was sent under, for the model to send again', async () => {
  const text = await answer('create', { file_path: 'a.txt', content: 'x'.repeat(100) })
  expect(text).toContain('{"command":"create","path":"a.txt","file_text":"<your content>"} ("<your NAME>" stands for the value you sent as NAME, unchanged).')
})

it('still answers a name no tool claims with the closest tool and the list', async () => {
  expect(await answer('raed', {})).toBe('Unknown tool "raed"; did you mean the dsh `read` tool? Available tools: the dsh `read` and `str_replace_editor` tools.')
})
