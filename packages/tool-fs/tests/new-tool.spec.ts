import { countTargetLines, plural, resolveTarget } from '@deepseek-ai/dsh-tool-text'
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import { Config } from '../src/config'
import { fsTool } from '../src/skeleton'
import { type Stack, stack } from './harness'

/*
 * The newcomer task "add a tool", done on the skeleton: a `line_count` tool in this one file. A
 * shipped tool would put the two statements below in `src/line-count.ts` and register it in
 * `src/index.ts` (and name what other harnesses call it in `src/foreign-names.ts`, if anything):
 * its hints, concurrency, refusals and their words all come from `fsTool` and dsh-tool-text.
 */
const lineCountInput = z.object({ file_path: z.string().describe('The file whose lines to count.') })

const lineCountTool = (ctx: Stack['ctx'], config: Config) => fsTool(ctx, config, {
  name: 'line_count', title: 'Count lines', kind: 'look', inputSchema: lineCountInput, description: 'Counts the lines of a text file.',
}, {
  async run(ctx, _config, input, call) {
    const target = call.target = await resolveTarget(ctx, input.file_path, call.exec)
    return { path: target.displayPath, lines: await countTargetLines(ctx.fs, target, call.exec.signal) }
  },
  render: ({ path, lines }) => `${path} has ${plural(lines, 'line')}.`,
})

let s: Stack
afterEach(async () => {
  await s.dispose()
})

it('adds a tool in one definition: hints and concurrency from its kind, data rendered once, refusals in the family\'s words', async () => {
  s = await stack({ policy: true })
  s.ctx.tools.register(lineCountTool(s.ctx, Config.parse({})))
  expect(s.ctx.tools.list().find((tool) => tool.name === 'line_count')?.annotations)
    .toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
  expect(s.ctx.tools.get('line_count')?.concurrency).toBe('shared')
  await s.put('a.txt', 'one\ntwo\nthree\n')
  expect(await s.call('line_count', { file_path: 'a.txt' })).toEqual({ content: [{ type: 'text', text: `${s.path('a.txt')} has 3 lines.` }], isError: false })
  const missing = await s.call('line_count', { file_path: 'gone.txt' })
  expect(missing.error?.code).toBe('FS_NOT_FOUND')
  expect(missing.content[0]!.text).toMatch(/; check the path, or create the file with the dsh `write` tool$/)
})
