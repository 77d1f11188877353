import { FileSystem } from '@deepseek-ai/dsh-fs'
import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import * as policyModule from '@deepseek-ai/dsh-fs-policy'
import * as toolsModule from '@deepseek-ai/dsh-tools'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as editorModule from '../src/index'

// Loaded the way the Cordis loader loads a package.
const editorPlugin = editorModule.default ?? editorModule
const policyPlugin = policyModule.default ?? policyModule
const toolsPlugin = toolsModule.default ?? toolsModule

export interface Session {
  cwd?: string
}

export interface EditorFixture {
  ctx: Context
  dir: string
  fs: CountingFileSystem
  /** A session whose cwd is the temp dir. */
  session: Session
  at(name: string): string
  call(args: Record<string, unknown>, session?: Session | null): Promise<ToolResult>
  /** Text of a successful call; throws with the model text when the call failed. */
  ok(args: Record<string, unknown>, session?: Session | null): Promise<string>
  bytes(name: string): Promise<Buffer | undefined>
  put(name: string, data: string | Uint8Array): Promise<void>
  dispose(): Promise<void>
}

/** The real local provider, counting the calls a test wants to bound. */
export class CountingFileSystem extends LocalFileSystem {
  stats = 0
  reads = 0
  /** Chunks a stream handed out before its reader stopped. */
  chunks = 0

  /** Runs once after the next `stat`, to act as another process between a stat and what follows. */
  afterStat: (() => Promise<void>) | undefined

  // The contract's composed `inspect` and `resolveForMutation`, not the provider's fused ones: their
  // `stat` and `resolve` are what is counted and hooked.
  override inspect(...args: Parameters<LocalFileSystem['inspect']>) {
    return FileSystem.prototype.inspect.apply(this, args)
  }
  override resolveForMutation(...args: Parameters<LocalFileSystem['resolveForMutation']>) {
    return FileSystem.prototype.resolveForMutation.apply(this, args)
  }

  override async stat(...args: Parameters<LocalFileSystem['stat']>) {
    this.stats++
    const info = await super.stat(...args)
    const hook = this.afterStat
    this.afterStat = undefined
    await hook?.()
    return info
  }

  override async *streamText(...args: Parameters<LocalFileSystem['streamText']>) {
    for await (const chunk of super.streamText(...args)) {
      this.chunks++
      yield chunk
    }
  }

  override async *streamBytes(...args: Parameters<LocalFileSystem['streamBytes']>) {
    for await (const chunk of super.streamBytes(...args)) {
      this.chunks++
      yield chunk
    }
  }

  override async *streamBytesFrom(...args: Parameters<LocalFileSystem['streamBytesFrom']>) {
    for await (const chunk of super.streamBytesFrom(...args)) {
      this.chunks++
      yield chunk
    }
  }

  override readText(...args: Parameters<LocalFileSystem['readText']>) {
    this.reads++
    return super.readText(...args)
  }
}

/** A real `LocalFileSystem` on a fresh temp dir, the tools runtime, this plugin, and (unless bare) the policy. */
export async function editorFixture(options: { policy?: boolean; rooted?: boolean; config?: editorModule.EditorConfig | Record<string, unknown> } = {}): Promise<EditorFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-sre-'))
  const ctx = new Context()
  await ctx.plugin(CountingFileSystem, options.rooted === true ? { cwd: dir, root: dir } : { cwd: dir })
  if (options.policy !== false) await ctx.plugin(policyPlugin)
  await ctx.plugin(toolsPlugin)
  await ctx.plugin(editorPlugin, options.config ?? {})
  const session: Session = { cwd: dir }
  const call = (args: Record<string, unknown>, who: Session | null = session) =>
    ctx.tools.execute({ name: 'str_replace_editor', arguments: args, ...(who === null ? {} : { agent: { session: who } }) })
  return {
    ctx,
    dir,
    fs: ctx.fs as CountingFileSystem,
    session,
    at: (name) => join(dir, name),
    call,
    async ok(args, who) {
      const result = await call(args, who)
      if (result.isError) throw new Error(`expected success, got ${result.error?.code}: ${result.content[0]?.text}`)
      return result.content[0]!.text
    },
    bytes: (name) => readFile(join(dir, name)).catch(() => undefined),
    put: (name, data) => writeFile(join(dir, name), data),
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}

/** The model text of a result. */
export const textOf = (result: ToolResult) => result.content.map((part) => part.text).join('')
