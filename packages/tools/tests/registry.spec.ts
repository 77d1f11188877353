import { Context } from 'cordis'
import { beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
// The real contract error, to prove an FsError is recognised across packages without importing dsh-fs.
import { FsError } from '../../fs/src/errors'
import * as mod from '../src/index'
import { defineTool, isRefusal, refuse, type RuntimeWords, type ToolExecution, ToolError } from '../src/index'
// The words the tool families install (dsh-tool-text's); imported by path, as dsh-tools does not depend on it.
import { RUNTIME_WORDS } from '../../tool-text/src/runtime-words'

const plugin = mod.default ?? mod

// What every test tool needs besides its name and behaviour; the hints are asserted where they matter.
const plain = { title: 'Test tool', annotations: {} }

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes its text.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: z.object({
    text: z.string().describe('What to echo'),
    times: z.number().int().min(1).optional(),
    replace_all: z.boolean().default(false),
  }),
  execute: (input) => input.text.repeat(input.times ?? 1),
})

let root: Context

beforeEach(async () => {
  root = new Context()
  await root.plugin(plugin)
  root.tools.useWords(RUNTIME_WORDS)
})

describe('loading', () => {
  it('provides ctx.tools and ctx.systemPrompt to a plugin that injects them', async () => {
    const seen: string[] = []
    const fiber = await root.plugin({
      inject: ['tools', 'systemPrompt'],
      apply(ctx: Context) {
        ctx.tools.register(echo)
        ctx.systemPrompt.section({ name: 'echo', order: 1, text: 'Use echo.' })
        seen.push('applied')
      },
    })
    expect(seen).toEqual(['applied'])
    expect(root.tools.list().map((tool) => tool.name)).toEqual(['echo'])
    expect(root.systemPrompt.render()).toBe('Use echo.')
    await fiber.dispose()
    expect(root.tools.list()).toEqual([])
    expect(root.systemPrompt.render()).toBe('')
  })

  it('keeps a dependent pending until the tools plugin is loaded', async () => {
    const bare = new Context()
    let applied = 0
    await bare.plugin({ inject: ['tools'], apply() { applied++ } })
    expect(applied).toBe(0)
    const tools = await bare.plugin(plugin)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(applied).toBe(1)
    await tools.dispose()
  })
})

describe('register and list', () => {
  it('lists a JSON Schema of the input that forbids extra properties', () => {
    root.tools.register(echo)
    expect(root.tools.list()).toEqual([{
      name: 'echo',
      title: 'Echo',
      description: 'Echoes its text.',
      annotations: { readOnlyHint: true, openWorldHint: false },
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'What to echo' },
          times: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          replace_all: { type: 'boolean', default: false },
        },
        required: ['text'],
        additionalProperties: false,
      },
    }])
  })

  it('removes a tool through its disposer', () => {
    const dispose = root.tools.register(echo)
    dispose()
    expect(root.tools.list()).toEqual([])
    expect(root.tools.get('echo')).toBeUndefined()
  })

  it('refuses a second tool with a taken name and a name models cannot call', () => {
    root.tools.register(echo)
    expect(() => root.tools.register(echo)).toThrow(/already registered/)
    expect(() => root.tools.register({ ...echo, name: 'has space' })).toThrow(/invalid tool name/)
  })

  it('lists tools by name whatever order the plugins registered them in', async () => {
    const names = ['write', 'edit', 'read', 'str_replace_editor']
    const listed: string[][] = []
    for (const order of [names, [...names].reverse()]) {
      const ctx = new Context()
      await ctx.plugin(plugin)
      for (const name of order) await ctx.plugin({ inject: ['tools'], apply: (inner: Context) => void inner.tools.register({ ...echo, name }) })
      listed.push(ctx.tools.list().map((tool) => tool.name))
    }
    expect(listed).toEqual([['edit', 'read', 'str_replace_editor', 'write'], ['edit', 'read', 'str_replace_editor', 'write']])
  })

  it('lists only the boolean MCP hints, and the name as title, for a tool from untyped code', () => {
    root.tools.register({ ...echo, title: undefined, annotations: { readOnlyHint: 'yes', destructiveHint: false, colour: true } } as never)
    const [listing] = root.tools.list()
    expect(listing).toMatchObject({ name: 'echo', title: 'echo', annotations: { destructiveHint: false } })
    expect(Object.keys(listing!.annotations)).toEqual(['destructiveHint'])
  })

  it('drops only the tools of the plugin that is disposed', async () => {
    const a = await root.plugin({ inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register(echo) })
    await root.plugin({ inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register({ ...echo, name: 'echo2' }) })
    await a.dispose()
    expect(root.tools.list().map((tool) => tool.name)).toEqual(['echo2'])
  })
})

describe('execute', () => {
  beforeEach(() => {
    root.tools.register(echo)
  })

  it('runs a tool and wraps its text', async () => {
    expect(await root.tools.execute({ name: 'echo', arguments: { text: 'ab', times: 2 } })).toEqual({
      content: [{ type: 'text', text: 'abab' }],
      isError: false,
    })
  })

  it('answers an unknown tool with an error that suggests the closest one', async () => {
    expect(await root.tools.execute({ name: 'ecko', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Unknown tool "ecko"; did you mean the dsh `echo` tool? Available tools: the dsh `echo` tool.' }],
      isError: true,
      error: { code: 'UNKNOWN_TOOL', message: 'Unknown tool "ecko"; did you mean the dsh `echo` tool? Available tools: the dsh `echo` tool.' },
    })
  })

  it('keeps the code of an FsError thrown by a tool', async () => {
    root.tools.register(defineTool({
      ...plain,
      name: 'fails',
      description: '',
      inputSchema: z.object({}),
      execute: () => { throw new FsError('FS_STALE_VERSION', 'a.txt has changed since it was read') },
    }))
    const result = await root.tools.execute({ name: 'fails', arguments: {} })
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({ code: 'FS_STALE_VERSION', message: 'a.txt has changed since it was read' })
  })

  it('turns any other exception into an error result without a code', async () => {
    root.tools.register(defineTool({
      ...plain,
      name: 'boom',
      description: '',
      inputSchema: z.object({}),
      execute: async () => { throw new Error('disk on fire') },
    }))
    expect(await root.tools.execute({ name: 'boom', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'disk on fire' }],
      isError: true,
      error: { message: 'disk on fire' },
    })
  })

  it('passes the call id, name, signal and agent to the tool', async () => {
    let seen: ToolExecution | undefined
    root.tools.register(defineTool({
      ...plain,
      name: 'spy', description: '', inputSchema: z.object({}), execute: (_input, exec) => { seen = exec; return 'ok' },
    }))
    const session = { cwd: '/tmp' }
    const controller = new AbortController()
    await root.tools.execute({ name: 'spy', arguments: {}, callId: 'c1', signal: controller.signal, agent: { session } })
    expect(seen).toEqual({ callId: 'c1', name: 'spy', signal: controller.signal, agent: { session } })
    await root.tools.execute({ name: 'spy' })
    expect(seen!.callId).toMatch(/^call_/)
    expect(seen!.signal.aborted).toBe(false)
    expect(seen!.agent).toBeUndefined()
  })

  it('renders what execute returned in the one render step, and a refusal as an error with its code', async () => {
    const rendered: unknown[] = []
    root.tools.register(defineTool({
      ...plain,
      name: 'half',
      description: '',
      inputSchema: z.object({ n: z.number().int() }),
      execute: ({ n }) => n % 2 === 0 ? { half: n / 2 } : refuse('ODD', { n }),
      render: (data, input) => {
        rendered.push(data)
        return 'half' in data ? `half of ${input.n} is ${data.half}` : `${data.refused.n} is odd; pass an even number`
      },
    }))
    expect(await root.tools.execute({ name: 'half', arguments: { n: 4 } })).toEqual({ content: [{ type: 'text', text: 'half of 4 is 2' }], isError: false })
    expect(await root.tools.execute({ name: 'half', arguments: { n: 3 } })).toEqual({
      content: [{ type: 'text', text: '3 is odd; pass an even number' }],
      isError: true,
      error: { code: 'ODD', message: '3 is odd; pass an even number' },
    })
    expect(rendered).toEqual([{ half: 2 }, { refused: { n: 3 }, code: 'ODD' }])
    expect(isRefusal(rendered[1])).toBe(true)
    expect(isRefusal({ refused: {}, code: 'ODD' })).toBe(false)
  })

  it('answers its own refusals with their data and code when no family installed words', async () => {
    const bare = new Context()
    await bare.plugin(plugin)
    bare.tools.register(echo)
    const unknown = await bare.tools.execute({ name: 'ecko', arguments: {} })
    expect(unknown.error?.code).toBe('UNKNOWN_TOOL')
    expect(JSON.parse(unknown.content[0]!.text)).toEqual({ kind: 'unknown-tool', name: 'ecko', suggestion: 'echo', available: ['echo'] })
    const invalid = await bare.tools.execute({ name: 'echo', arguments: { text: 42 } })
    expect(invalid.error?.code).toBe('INVALID_ARGUMENTS')
    expect(JSON.parse(invalid.content[0]!.text)).toEqual({
      kind: 'invalid-arguments', tool: 'echo', issues: [{ kind: 'type', name: 'text', expected: 'string', got: { type: 'number', value: 42 } }],
    })
  })

  it('words its refusals with the words installed last, for as long as their plugin lives', async () => {
    const shout: RuntimeWords = (refusal) => `NO (${refusal.kind})`
    const fiber = await root.plugin({ inject: ['tools'], apply: (ctx: Context) => void ctx.tools.useWords(shout) })
    expect((await root.tools.execute({ name: 'ecko', arguments: {} })).content[0]!.text).toBe('NO (unknown-tool)')
    await fiber.dispose()
    expect((await root.tools.execute({ name: 'ecko', arguments: {} })).content[0]!.text).toMatch(/^Unknown tool "ecko"; did you mean the dsh `echo` tool\?/)
  })

  it('fails an already-aborted call with ABORTED before the tool runs', async () => {
    let runs = 0
    root.tools.register(defineTool({ ...plain, name: 'count', description: '', inputSchema: z.object({}), execute: () => String(++runs) }))
    const controller = new AbortController()
    controller.abort()
    const result = await root.tools.execute({ name: 'count', arguments: {}, signal: controller.signal })
    expect(result.error?.code).toBe('ABORTED')
    expect(runs).toBe(0)
  })

  it('fails with ABORTED a call aborted while its tool runs, whatever the tool then throws', async () => {
    const throws: Record<string, (signal: AbortSignal) => unknown> = { reason: (signal) => signal.reason, broken: () => new Error('worker terminated') }
    for (const [name, thrown] of Object.entries(throws)) {
      root.tools.register(defineTool({ ...plain, name, description: '', inputSchema: z.object({}), execute: async (_input, exec) => {
        await new Promise((resolve) => exec.signal.addEventListener('abort', resolve, { once: true }))
        throw thrown(exec.signal)
      } }))
      const controller = new AbortController()
      const call = root.tools.execute({ name, arguments: {}, signal: controller.signal })
      await new Promise((resolve) => setImmediate(resolve))
      controller.abort()
      const result = await call
      expect(result.error?.code).toBe('ABORTED')
      expect(result.content[0]!.text).not.toMatch(/worker terminated|AbortError/)
    }
  })
})

describe('the executor', () => {
  it('runs the tools registered and the hooks added after it was taken, and none once they are gone', async () => {
    const execute = root.tools.executor()
    expect(await execute({ name: 'echo', arguments: { text: 'a' } })).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
    const fiber = await root.plugin({
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(echo)
        ctx.on('tools/execute', async (_exec, _input, next) => {
          const result = await next()
          return { ...result, content: [{ type: 'text', text: `hooked ${result.content[0]!.text}` }] }
        })
      },
    })
    expect(await execute({ name: 'echo', arguments: { text: 'ab', times: 2 } })).toEqual({ content: [{ type: 'text', text: 'hooked abab' }], isError: false })
    await fiber.dispose()
    expect(await execute({ name: 'echo', arguments: { text: 'a' } })).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
  })
})

describe('pinServices', () => {
  it('gives a context whose services and events are the plugin\'s own, read once', async () => {
    const seen: string[] = []
    root.on('tools/pinned-test' as never, ((value: string) => seen.push(value)) as never)
    await root.plugin({
      inject: ['tools'],
      apply(ctx: Context) {
        const calls = mod.pinServices(ctx, ['tools'])
        expect(Object.hasOwn(calls, 'tools') && Object.hasOwn(calls, 'emit')).toBe(true)
        calls.tools.register(echo)
        ;(calls.emit as (name: string, value: string) => void)('tools/pinned-test', 'emitted')
      },
    })
    expect(seen).toEqual(['emitted'])
    expect(root.tools.list().map((tool) => tool.name)).toEqual(['echo'])
  })
})

describe('argument validation', () => {
  beforeEach(() => {
    root.tools.register(echo)
  })

  async function message(args: unknown): Promise<string> {
    const result = await root.tools.execute({ name: 'echo', arguments: args })
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    return result.content[0]!.text
  }

  it('names the closest valid argument for a camelCase spelling', async () => {
    expect(await message({ text: 'a', replaceAll: true })).toBe(
      'Unknown argument "replaceAll" for the dsh `echo` tool; did you mean replace_all?\nValid arguments: text, times, replace_all.\n'
        + 'Retry with: {"text":"a","replace_all":true}',
    )
  })

  it('names the closest valid argument for a typo, and none for a stranger', async () => {
    expect(await message({ txet: 'a' })).toBe(
      'Unknown argument "txet" for the dsh `echo` tool; did you mean text?\nValid arguments: text, times, replace_all.\nRetry with: {"text":"a"}',
    )
    expect(await message({ text: 'a', colour: 'red' })).toBe('Unknown argument "colour" for the dsh `echo` tool.\nValid arguments: text, times, replace_all.')
  })

  it('says which argument has the wrong type and what was expected', async () => {
    expect(await message({ text: 42 })).toBe('Argument "text" must be a string, got number 42.')
    expect(await message({ text: 'a', times: '2' })).toBe('Argument "times" must be a number, got the string "2".')
    expect(await message({ text: 'a', times: 1.5 })).toBe('Argument "times" must be an integer, got number 1.5.')
  })

  it('reports a missing required argument and a value out of range', async () => {
    expect(await message({})).toBe('Missing required argument "text" (expected a string).')
    expect(await message({ text: 'a', times: 0 })).toBe('Argument "times" is invalid: Too small: expected number to be >=1.')
  })

  it('answers the other tool family\'s name with this tool\'s name and the call that works', async () => {
    root.tools.register(defineTool({
      ...plain,
      name: 'look',
      description: '',
      inputSchema: z.object({ file_path: z.string(), offset: z.number().optional() }),
      execute: () => 'ok',
    }))
    const result = await root.tools.execute({ name: 'look', arguments: { path: 'src/a.ts', offset: 3 } })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.content[0]!.text).toBe([
      'Unknown argument "path" for the dsh `look` tool; did you mean file_path?',
      'Valid arguments: file_path, offset.',
      'Retry with: {"file_path":"src/a.ts","offset":3}',
    ].join('\n'))
  })

  it('maps each family name both ways', async () => {
    root.tools.register(defineTool({
      ...plain,
      name: 'editor',
      description: '',
      inputSchema: z.object({ path: z.string(), old_str: z.string(), new_str: z.string(), file_text: z.string().optional() }),
      execute: () => 'ok',
    }))
    const result = await root.tools.execute({ name: 'editor', arguments: { file_path: 'a', old_string: 'x', new_string: 'y', content: 'z' } })
    expect(result.content[0]!.text.split('\n')).toEqual([
      'Unknown argument "file_path" for the dsh `editor` tool; did you mean path?',
      'Unknown argument "old_string" for the dsh `editor` tool; did you mean old_str?',
      'Unknown argument "new_string" for the dsh `editor` tool; did you mean new_str?',
      'Unknown argument "content" for the dsh `editor` tool; did you mean file_text?',
      'Valid arguments: path, old_str, new_str, file_text.',
      'Retry with: {"path":"a","old_str":"x","new_str":"y","file_text":"z"}',
    ])
  })

  it('shows a long value elided in the corrected call, and says so', async () => {
    const text = 'x'.repeat(500)
    const lines = (await message({ txet: text })).split('\n')
    expect(lines.at(-1)).toBe('Retry with: {"text":"…"} ("…" stands for the value you sent, unchanged)')
    expect(lines.join('\n')).not.toContain(text)
  })

  it('says to leave out a second spelling of an argument that is given', async () => {
    expect(await message({ text: 'a', Text: 'b' })).toBe([
      'Unknown argument "Text" for the dsh `echo` tool; text is given too, so leave Text out.',
      'Valid arguments: text, times, replace_all.',
      'Retry with: {"text":"a"}',
    ].join('\n'))
  })

  it('shows no corrected call when one unknown name has no suggestion', async () => {
    expect(await message({ text: 'a', colour: 'red', replaceAll: true })).toBe([
      'Unknown argument "colour" for the dsh `echo` tool.',
      'Unknown argument "replaceAll" for the dsh `echo` tool; did you mean replace_all?',
      'Valid arguments: text, times, replace_all.',
    ].join('\n'))
  })

  it('rejects arguments that are not an object', async () => {
    expect(await message(['a'])).toBe('Arguments for the dsh `echo` tool must be a JSON object, got an array.')
  })
})

describe('client control arguments', () => {
  it('are one exported list, with Gemini CLI\'s wait_for_previous in it', () => {
    expect(mod.CLIENT_CONTROL_ARGUMENTS).toContain('wait_for_previous')
  })

  it('are accepted on every tool and never reach the tool, its hooks or its JSON Schema', async () => {
    const seen: unknown[] = []
    root.tools.register(defineTool({
      ...plain, name: 'spy', description: '', inputSchema: z.object({ n: z.number().optional() }),
      execute: (input) => { seen.push(input); return 'ok' },
    }))
    root.tools.register(defineTool({ ...plain, name: 'bare', description: '', inputSchema: z.object({}), execute: (input) => { seen.push(input); return 'ok' } }))
    root.on('tools/execute', async (_exec, input, next) => { seen.push(input); return next() })
    for (const control of mod.CLIENT_CONTROL_ARGUMENTS) {
      seen.length = 0
      expect(await root.tools.execute({ name: 'spy', arguments: { n: 1, [control]: true } })).toMatchObject({ isError: false })
      expect(await root.tools.execute({ name: 'bare', arguments: { [control]: false } })).toMatchObject({ isError: false })
      expect(seen).toEqual([{ n: 1 }, { n: 1 }, {}, {}])
    }
    for (const listing of root.tools.list()) {
      expect(listing.inputSchema).toMatchObject({ additionalProperties: false })
      expect(Object.keys(listing.inputSchema.properties as object)).not.toContain('wait_for_previous')
    }
  })

  it('leave everything else strict: a near miss of a control argument is still refused', async () => {
    root.tools.register(echo)
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a', wait_for_prev: true } })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(result.content[0]!.text).toContain('Unknown argument "wait_for_prev" for the dsh `echo` tool')
  })

  it('stay the tool\'s own when its schema declares one', async () => {
    const seen: unknown[] = []
    root.tools.register(defineTool({
      ...plain, name: 'own', description: '', inputSchema: z.object({ wait_for_previous: z.boolean() }),
      execute: (input) => { seen.push(input); return 'ok' },
    }))
    expect((await root.tools.execute({ name: 'own', arguments: {} })).error?.code).toBe('INVALID_ARGUMENTS')
    await root.tools.execute({ name: 'own', arguments: { wait_for_previous: true } })
    expect(seen).toEqual([{ wait_for_previous: true }])
  })
})

describe('the tools/execute waterfall', () => {
  let runs: number
  beforeEach(() => {
    runs = 0
    root.tools.register(defineTool({
      ...plain,
      name: 'count', description: '', inputSchema: z.object({ by: z.number().default(1) }), execute: (input) => String((runs += input.by)),
    }))
  })

  it('lets a permission hook refuse a call so the tool never runs', async () => {
    root.on('tools/execute', async (exec) => {
      throw new ToolError('PERMISSION_DENIED', `${exec.name} is not allowed here`)
    })
    const result = await root.tools.execute({ name: 'count', arguments: {} })
    expect(result.error).toEqual({ code: 'PERMISSION_DENIED', message: 'count is not allowed here' })
    expect(runs).toBe(0)
  })

  it('lets audit and timing hooks wrap the call in registration order with the parsed input', async () => {
    const log: string[] = []
    root.on('tools/execute', async (exec, input, next) => {
      log.push(`audit ${exec.name} ${JSON.stringify(input)}`)
      const result = await next()
      log.push(`audit done ${result.content[0]!.text}`)
      return result
    })
    root.on('tools/execute', async (_exec, _input, next) => {
      log.push('timing')
      return next()
    })
    const result = await root.tools.execute({ name: 'count', arguments: { by: 3 } })
    expect(result.content[0]!.text).toBe('3')
    expect(log).toEqual(['audit count {"by":3}', 'timing', 'audit done 3'])
  })

  it('lets a hook answer in place of the tool', async () => {
    root.on('tools/execute', async () => ({ content: [{ type: 'text', text: 'cached' }], isError: false }))
    expect((await root.tools.execute({ name: 'count', arguments: {} })).content[0]!.text).toBe('cached')
    expect(runs).toBe(0)
  })

  it('does not run hooks for a call whose arguments are invalid', async () => {
    let hooked = 0
    root.on('tools/execute', async (_exec, _input, next) => { hooked++; return next() })
    await root.tools.execute({ name: 'count', arguments: { by: 'x' } })
    expect(hooked).toBe(0)
  })

  it('still refuses to run a tool whose signal aborted while a hook was waiting', async () => {
    const controller = new AbortController()
    root.on('tools/execute', async (_exec, _input, next) => { controller.abort(); return next() })
    const result = await root.tools.execute({ name: 'count', arguments: {}, signal: controller.signal })
    expect(result.error?.code).toBe('ABORTED')
    expect(runs).toBe(0)
  })
})

describe('concurrency', () => {
  function tracked(name: string, concurrency: 'shared' | 'exclusive', log: string[]) {
    return defineTool({
      ...plain, name, description: '', concurrency, inputSchema: z.object({ id: z.string() }),
      async execute({ id }) {
        log.push(`start ${id}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
        log.push(`end ${id}`)
        return id
      },
    })
  }

  it('overlaps shared calls of one session and runs an exclusive call alone', async () => {
    const log: string[] = []
    root.tools.register(tracked('look', 'shared', log))
    root.tools.register(tracked('change', 'exclusive', log))
    const agent = { session: {} }
    await Promise.all([
      root.tools.execute({ name: 'look', arguments: { id: 'r1' }, agent }),
      root.tools.execute({ name: 'look', arguments: { id: 'r2' }, agent }),
      root.tools.execute({ name: 'change', arguments: { id: 'w' }, agent }),
      root.tools.execute({ name: 'look', arguments: { id: 'r3' }, agent }),
    ])
    expect(log).toEqual(['start r1', 'start r2', 'end r1', 'end r2', 'start w', 'end w', 'start r3', 'end r3'])
  })

  it('never makes two sessions wait for each other', async () => {
    const log: string[] = []
    root.tools.register(tracked('change', 'exclusive', log))
    await Promise.all([
      root.tools.execute({ name: 'change', arguments: { id: 'a' }, agent: { session: {} } }),
      root.tools.execute({ name: 'change', arguments: { id: 'b' }, agent: { session: {} } }),
    ])
    expect(log.slice(0, 2)).toEqual(['start a', 'start b'])
  })
})
