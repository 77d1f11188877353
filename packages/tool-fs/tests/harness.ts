import { FileSystem, type FsStreamFromOptions, type FsTarget } from '@deepseek-ai/dsh-fs'
import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import * as policyModule from '@deepseek-ai/dsh-fs-policy'
import * as toolsModule from '@deepseek-ai/dsh-tools'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { z } from 'zod'
import * as toolFsModule from '../src/index'

// Loaded the way the cordis loader loads a package.
export const policyPlugin = policyModule.default ?? policyModule
export const toolsPlugin = toolsModule.default ?? toolsModule
export const toolFsPlugin = toolFsModule.default ?? toolFsModule

export type CountedMethod = 'resolve' | 'stat' | 'readText' | 'streamText' | 'streamBytes' | 'streamBytesFrom' | 'listDir' | 'writeText' | 'editText'

/** Every call the tools make to the provider, in order, and what happened to streams. */
export interface ProviderLog {
  calls: CountedMethod[]
  /** Chunks handed out by `streamText`/`streamBytes`, and streams the consumer closed before their end. */
  chunks: number
  closedEarly: number
}

/** Logs the call when the stream is first pulled, then counts its chunks and whether it was closed early. */
async function* counted<T>(log: ProviderLog, method: CountedMethod, open: () => AsyncIterable<T>): AsyncGenerator<T> {
  log.calls.push(method)
  let finished = false
  try {
    for await (const chunk of open()) {
      log.chunks++
      yield chunk
    }
    finished = true
  } finally {
    if (!finished) log.closedEarly++
  }
}

/** A real LocalFileSystem that records each call made to it (the stat budget is counted here). */
function countingProvider(log: ProviderLog) {
  return class CountingFileSystem extends LocalFileSystem {
    // The contract's composed `inspect` (resolve, stat, readText) and `resolveForMutation` (resolve),
    // not the provider's fused ones, so that each step the tools cause is counted here.
    override inspect(...args: Parameters<LocalFileSystem['inspect']>) {
      return FileSystem.prototype.inspect.apply(this, args)
    }
    override resolveForMutation(...args: Parameters<LocalFileSystem['resolveForMutation']>) {
      return FileSystem.prototype.resolveForMutation.apply(this, args)
    }
    override resolve(...args: Parameters<LocalFileSystem['resolve']>) {
      log.calls.push('resolve')
      return super.resolve(...args)
    }
    override stat(target: FsTarget, signal?: AbortSignal) {
      log.calls.push('stat')
      return super.stat(target, signal)
    }
    override readText(target: FsTarget, signal?: AbortSignal) {
      log.calls.push('readText')
      return super.readText(target, signal)
    }
    override streamText(target: FsTarget, signal?: AbortSignal) {
      return counted(log, 'streamText', () => super.streamText(target, signal))
    }
    override streamBytes(target: FsTarget, signal?: AbortSignal) {
      return counted(log, 'streamBytes', () => super.streamBytes(target, signal))
    }
    override streamBytesFrom(target: FsTarget, start: number, opts?: FsStreamFromOptions) {
      return counted(log, 'streamBytesFrom', () => super.streamBytesFrom(target, start, opts))
    }
    override listDir(target: FsTarget, signal?: AbortSignal) {
      log.calls.push('listDir')
      return super.listDir(target, signal)
    }
    override writeText(...args: Parameters<LocalFileSystem['writeText']>) {
      log.calls.push('writeText')
      return super.writeText(...args)
    }
    override editText(...args: Parameters<LocalFileSystem['editText']>) {
      log.calls.push('editText')
      return super.editText(...args)
    }
  }
}

export interface StackOptions {
  policy: boolean
  /** Contain the provider in the temp directory, as the shipped config does. */
  rooted?: boolean
  config?: z.input<typeof toolFsModule.Config>
}

export interface Stack {
  root: Context
  dir: string
  session: { cwd: string }
  log: ProviderLog
  /** Calls a tool as `session` (default: the stack's session). */
  call(name: string, args: unknown, session?: object): Promise<ToolResult>
  /** The text of a call's result. */
  text(name: string, args: unknown, session?: object): Promise<string>
  path(name: string): string
  /** The outside world: another process touching the disk. */
  put(name: string, data: string | Uint8Array): Promise<void>
  bytes(name: string): Promise<Buffer>
  dispose(): Promise<void>
}

/** The assembled stack on a fresh temp directory: LocalFileSystem, tools, optionally the policy, tool-fs. */
export async function stack(options: StackOptions): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-tool-fs-'))
  const log: ProviderLog = { calls: [], chunks: 0, closedEarly: 0 }
  const root = new Context()
  await root.plugin(countingProvider(log), options.rooted === true ? { cwd: dir, root: dir } : { cwd: dir })
  await root.plugin(toolsPlugin)
  if (options.policy) await root.plugin(policyPlugin)
  await root.plugin(toolFsPlugin, options.config)
  const session = { cwd: dir }
  const call = (name: string, args: unknown, who: object = session) => root.tools.execute({ name, arguments: args, agent: { session: who } })
  return {
    root,
    dir,
    session,
    log,
    call,
    text: async (name, args, who) => (await call(name, args, who)).content.map((part) => part.text).join(''),
    path: (name) => join(dir, name),
    put: (name, data) => writeFile(join(dir, name), data),
    bytes: (name) => readFile(join(dir, name)),
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}
