import { Context } from 'cordis'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import type {} from '@deepseek-ai/dsh-mcp'
import { DEFAULT_CONFIG } from './arguments'
import { boot } from './boot'
import { finalState, seed, STEPS } from './demo-script'
import { McpLines } from './mcp-lines'
import { version } from './version'

/** Where the shipped config roots the files; the demo roots them in its temporary directory instead. */
const CWD = '!!js process.cwd()'
const ERROR_META_KEY = 'ai.deepseek.dsh/error'

/**
 * `dsh demo`: the scripted session of `demo-script.ts`, run against the shipped cordis.yml booted
 * by the loader exactly as `dsh start` boots it (only rooted in a temporary directory), and talked
 * to over its MCP stdio server through in-memory pipes: what it prints is what a client of
 * `dsh start` receives. Exits 1 if any step does not end the way the script says, so the demo
 * doubles as a smoke test.
 */
export async function demo(out: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'dsh-demo-')))
  // The config sits beside the project, not in it: the model's tools see only the seeded files.
  const dir = join(base, 'project')
  const ctx = new Context()
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  ctx.provide('mcpStdio')
  ctx.set('mcpStdio', { take: () => ({ input: toServer, output: fromServer }) })
  let dispose = async () => {}
  try {
    await mkdir(dir)
    await seed(dir)
    const shipped = await readFile(DEFAULT_CONFIG, 'utf8')
    if (!shipped.includes(CWD)) throw new Error(`${DEFAULT_CONFIG} no longer roots the files at ${CWD}: update the demo`)
    const config = join(base, 'cordis.yml')
    await writeFile(config, shipped.replaceAll(CWD, JSON.stringify(dir)))
    const booted = await boot(ctx, config, 60_000)
    dispose = booted.dispose
    if (booted.problems.length > 0) throw new Error(`the shipped config did not start: ${booted.problems.map((problem) => `${problem.id}: ${problem.message}`).join('; ')}`)
    const client = new McpLines(fromServer, toServer)
    await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dsh-demo', version } })
    client.notify('notifications/initialized')

    const callTool: CallTool = async (name, args) => {
      const answer = await client.request('tools/call', { name, arguments: args })
      if (answer.error !== undefined) throw new Error(`tools/call ${name} failed: ${answer.error.message}`)
      return answer.result as ToolResult
    }
    out(`dsh demo: one model session in ${dir}\n(the shipped cordis.yml rooted there, talked to over MCP as \`dsh start\` serves it)\n`)
    return await runScript(dir, callTool, out)
  } finally {
    toServer.end()
    await dispose()
    await rm(base, { recursive: true, force: true })
  }
}

export interface ToolResult { isError?: boolean; content: Array<{ text?: string }>; _meta?: Record<string, unknown> }
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>

/**
 * Plays STEPS in `dir` through `callTool` and prints each call and what came back; returns the exit
 * status (1 when a step or the final files are not as scripted). Shared with the test that plays
 * the same script against a spawned `dsh start`, so both print through this one function.
 */
export async function runScript(dir: string, callTool: CallTool, out: (text: string) => void): Promise<number> {
  let failures = 0
  for (const [index, step] of STEPS.entries()) {
    out(`\n${index + 1}. ${step.say}\n`)
    if ('disk' in step) {
      out(`   $ ${await step.disk(dir)}\n`)
      continue
    }
    out(`   > ${step.call.name} ${JSON.stringify(step.call.arguments)}\n`)
    const result = await callTool(step.call.name, step.call.arguments)
    const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code
    const outcome = result.isError ? code ?? 'error' : 'ok'
    const text = result.content.map((part) => part.text ?? '').join('\n')
    out(`   < ${result.isError ? `error ${outcome}: ` : ''}${indent(text)}\n`)
    if (outcome !== step.expect) {
      failures++
      out(`   !! expected ${step.expect === 'ok' ? 'success' : step.expect}, got ${outcome}\n`)
    }
  }
  const final = await finalState(dir)
  if (!final.ok) failures++
  out(`\n${final.ok ? 'On disk' : '!! On disk'}: ${final.detail}.\n`)
  out(failures === 0 ? `Every step behaved as scripted.\n` : `${failures} step(s) did not behave as scripted.\n`)
  return failures === 0 ? 0 : 1
}

function indent(text: string): string {
  return text.includes('\n') ? `\n${text.split('\n').map((line) => `     ${line}`).join('\n')}` : text
}
