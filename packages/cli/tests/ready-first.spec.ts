import mcp from '@deepseek-ai/dsh-mcp'
import tools from '@deepseek-ai/dsh-tools'
import toolFs from '@deepseek-ai/dsh-tool-fs'
import LocalFileSystem from '@deepseek-ai/dsh-fs-local'
import policy from '@deepseek-ai/dsh-fs-policy'
import { type ChildProcess, spawn } from 'node:child_process'
import { Context } from 'cordis'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Manifest } from '../src/manifest'
import { StdioFront } from '../src/stdio-front'
import { DEFAULT_CONFIG_FILE, DSH_BIN, requireBuild, tempDir } from './dsh-process'
import { frameReader, type Frame } from './frames'

// The stdio front (src/stdio-front.ts): the client's first two questions answered from the
// build's manifest while the plugins load, everything it sends replayed to the real server after.

vi.setConfig({ testTimeout: 60_000 })

const MANIFEST = fileURLToPath(new URL('../lib/manifest.json', import.meta.url))
const line = (message: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`
const INITIALIZE = line({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1.0.0' } } })
const INITIALIZED = line({ method: 'notifications/initialized' })
const LIST = line({ id: 1, method: 'tools/list' })

/** `dsh start` (the built bin) with every given line written at once, as a client that does not wait. */
function spawnStart(args: string[], cwd: string, text: string): { child: ChildProcess; next: () => Promise<Frame>; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [DSH_BIN, 'start', ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
  child.stdin!.write(text)
  return { child, next: frameReader(child.stdout!), stderr: () => stderr, exited }
}

let temp: Awaited<ReturnType<typeof tempDir>>
let manifest: Manifest

beforeAll(async () => {
  requireBuild()
  temp = await tempDir()
  manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as Manifest
  await writeFile(join(temp.dir, 'notes.md'), 'milk\n')
})

afterAll(async () => {
  await temp?.[Symbol.asyncDispose]()
})

describe('dsh start over stdio, before the plugins have loaded', () => {
  it('answers initialize and tools/list from the manifest, then serves a tools/call the client sent before loading finished', async () => {
    const call = line({ id: 2, method: 'tools/call', params: { name: 'read', arguments: { file_path: 'notes.md' } } })
    const run = spawnStart([], temp.dir, INITIALIZE + INITIALIZED + LIST + call)
    const initialize = await run.next()
    expect(initialize).toMatchObject({ id: 0, result: { protocolVersion: '2025-06-18', serverInfo: manifest.initialize.serverInfo, instructions: manifest.initialize.instructions } })
    // The front may tell of a changed list later, so it says it can.
    expect(initialize.result.capabilities.tools.listChanged).toBe(true)
    expect(await run.next()).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: manifest.tools } })
    const result = await run.next()
    expect(result.id).toBe(2)
    expect(result.result.isError).toBe(false)
    expect(result.result.content[0].text).toContain('1\tmilk')
    run.child.stdin!.end()
    expect(await run.exited).toBe(0)
    expect(run.stderr()).toContain('answered 2 request(s) from the manifest while loading')
    // The server saw the replayed tools/list: the listing is in the log, no warning about it.
    expect(run.stderr()).toMatch(/client spec 1\.0\.0 listed the tools/)
    expect(run.stderr()).not.toMatch(/^W /m)
  })

  it('the manifest holds what a fresh start of the shipped config answers (a copy with another hash gets no front)', async () => {
    const copy = join(temp.dir, 'copy.yml')
    await writeFile(copy, `${await readFile(DEFAULT_CONFIG_FILE, 'utf8')}# a copy\n`)
    const run = spawnStart(['--config', copy], temp.dir, INITIALIZE + INITIALIZED + LIST)
    const initialize = await run.next()
    const list = await run.next()
    run.child.stdin!.end()
    expect(await run.exited).toBe(0)
    expect(run.stderr()).not.toContain('from the manifest')
    const { capabilities, serverInfo, instructions } = initialize.result
    expect({ capabilities, serverInfo, instructions }).toEqual(manifest.initialize)
    expect(list.result.tools).toEqual(manifest.tools)
  })

  it('a client that initializes but never lists the tools leaves a warning in the log', async () => {
    const run = spawnStart([], temp.dir, INITIALIZE + INITIALIZED)
    await run.next()
    run.child.stdin!.end()
    expect(await run.exited).toBe(0)
    expect(run.stderr()).toMatch(/^W mcp stdin closed by (the client|client spec 1\.0\.0), which never listed the tools/m)
  })
})

describe('the front against the real server, in process', () => {
  it('a manifest that lists other tools than the server is followed by notifications/tools/list_changed, and the server list is served after', async () => {
    await using dir = await tempDir()
    const stale: Manifest = { ...manifest, tools: manifest.tools.filter((tool) => tool.name !== 'write') }
    const input = new PassThrough()
    const output = new PassThrough()
    const next = frameReader(output)
    const front = new StdioFront(stale, input, output)
    const warnings: string[] = []
    front.log = { info: () => {}, warn: (format) => warnings.push(format) }
    input.write(INITIALIZE + INITIALIZED + LIST)
    expect((await next()).id).toBe(0)
    expect((await next()).result.tools.map((tool: { name: string }) => tool.name)).not.toContain('write')

    const ctx = new Context()
    ctx.provide('mcpStdio')
    ctx.set('mcpStdio', { take: () => front.take() })
    const fibers = [
      await ctx.plugin(LocalFileSystem, { cwd: dir.dir, root: dir.dir }),
      await ctx.plugin(policy),
      await ctx.plugin(tools),
      await ctx.plugin(toolFs, { staleRefusalObserves: true }),
      await ctx.plugin(mcp),
    ]
    try {
      expect(await next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })
      expect(warnings.join('\n')).toMatch(/tool list differs/)
      input.write(line({ id: 3, method: 'tools/list' }))
      const fresh = await next()
      expect(fresh.id).toBe(3)
      expect(fresh.result.tools.map((tool: { name: string }) => tool.name)).toContain('write')
    } finally {
      input.end()
      for (const fiber of fibers.reverse()) await fiber.dispose()
    }
  })
})

describe('the handover', () => {
  const CALL = line({ id: 2, method: 'tools/call', params: { name: 'read', arguments: { file_path: 'notes.md' } } })

  async function collect(stream: NodeJS.ReadableStream, until: (text: string) => boolean): Promise<string> {
    let text = ''
    for await (const chunk of stream) {
      text += chunk.toString()
      if (until(text)) break
    }
    return text
  }

  it('hands over stdin itself, with the lines read while loading in front of the ones that follow', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const next = frameReader(output)
    const front = new StdioFront(manifest, input, output)
    // The last line arrives in two pieces, the first before the handover.
    input.write(INITIALIZE + INITIALIZED + CALL.slice(0, 20))
    expect((await next()).id).toBe(0)
    const taken = front.take()
    expect(taken.input).toBe(input)
    expect(front.take()).toBe(taken)
    input.write(CALL.slice(20) + LIST)
    const text = await collect(taken.input.resume(), (sofar) => sofar.endsWith(LIST))
    expect(text).toBe(INITIALIZE + INITIALIZED + CALL + LIST)
  })

  it('replays what a client sent before closing stdin, then ends', async () => {
    const input = new PassThrough()
    const front = new StdioFront(manifest, input, new PassThrough())
    input.end(INITIALIZE + CALL)
    await new Promise((resolve) => input.once('end', resolve))
    const taken = front.take()
    expect(taken.input).not.toBe(input)
    expect(await collect(taken.input, () => false)).toBe(INITIALIZE + CALL)
  })

  it('holds back only the server\'s answers to what the front answered, once each', async () => {
    const input = new PassThrough()
    const front = new StdioFront(manifest, input, new PassThrough())
    input.write(INITIALIZE)
    await new Promise((resolve) => setImmediate(resolve))
    const { holdBack } = front.take()
    const answer = { jsonrpc: '2.0' as const, id: 0, result: { ...manifest.initialize, protocolVersion: '2025-06-18' } }
    expect(holdBack!(answer)).toBe(true)
    expect(holdBack!(answer)).toBe(false)
    expect(holdBack!({ jsonrpc: '2.0', id: 2, result: { content: [] } })).toBe(false)
  })
})
