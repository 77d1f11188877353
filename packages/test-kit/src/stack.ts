import { randomUUID } from 'node:crypto'
import type { FileSystem } from '@deepseek-ai/dsh-fs'
import * as policyModule from '@deepseek-ai/dsh-fs-policy'
import * as toolFsModule from '@deepseek-ai/dsh-tool-fs'
import * as editorModule from '@deepseek-ai/dsh-tool-str-replace-editor'
import * as toolsModule from '@deepseek-ai/dsh-tools'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { Context, type Fiber } from 'cordis'
import { chmod, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { z } from 'zod'
import { CallLog } from './call-log'
import { e2bWorld, localWorld, memoryWorld, type ProviderKind, type World } from './providers'

export type ToolFamily = 'tool-fs' | 'str-replace-editor'
/** The plugins of a stack, as `order` names them. */
export type StackPart = 'provider' | 'policy' | 'tools' | ToolFamily

export interface StackOptions {
  /** Where the files live. Default `local`. */
  provider?: ProviderKind
  /** `local` only: contain the provider in the working directory, as the shipped config does. */
  rooted?: boolean
  /** `local` only: the provider's largest text file (its `maxTextBytes`), which the tools read from it. */
  maxTextBytes?: number
  /** `e2b` only: use this envd (say, a spec file's shared emulator, to count its requests) instead of a fresh emulator. */
  sandboxUrl?: string
  /** `e2b` only: the deadline of each request (the provider's `requestTimeoutMs`), for tests that lose the connection. */
  requestTimeoutMs?: number
  /** Load the observed-state policy. Default true. */
  policy?: boolean
  /** The policy's config (its defaults are the seed rule and the memory ledger). */
  policyConfig?: z.input<typeof policyModule.Config>
  /** Tool families to load. Default both, as the shipped config does. */
  tools?: ToolFamily[]
  toolFs?: z.input<typeof toolFsModule.Config>
  editor?: z.input<typeof editorModule.Config>
  /** Given to every tool family (`toolFs` and `editor` win where they set it too). */
  staleRefusalObserves?: boolean
  /** The order the plugins are loaded in (Cordis must wire any order). Default provider, policy, tools, then the families. */
  order?: StackPart[]
}

/** A session the policy keys its observations on; its `cwd` is the stack's working directory. */
export interface Session {
  cwd?: string
  /** A stable owner key (as the MCP server sets per bearer token): calls of any session object with it share observations. */
  owner?: string
}

export interface Stack {
  ctx: Context
  /** The provider on `ctx.fs` (its calls are in `log`). */
  fs: FileSystem
  /** The working directory (a real temp directory; a path in the volume for `memory`). */
  dir: string
  /** A sibling of `dir` that no tool call should reach. */
  outside: string
  session: Session
  log: CallLog
  /** Calls a tool as `session` (default: the stack's session; `null`: no agent at all). */
  call(name: string, args: unknown, session?: Session | null): Promise<ToolResult>
  /** The text of a call's result. */
  text(name: string, args: unknown, session?: Session | null): Promise<string>
  /** The text of a call that must succeed; throws with the model text when it failed. */
  ok(name: string, args: unknown, session?: Session | null): Promise<string>
  path(name: string): string
  /** The outside world: another process writing, reading or deleting (parents are created). */
  put(name: string, data: string | Uint8Array): Promise<void>
  bytes(name: string): Promise<Buffer | undefined>
  remove(name: string): Promise<void>
  dispose(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

// Loaded the way the Cordis loader loads a package: its default export, or the module itself.
const pluginOf = <T>(module: { default?: T }) => (module.default ?? module) as T

/** The assembled stack on a fresh directory: provider, policy, tools runtime and tool families. */
export async function stack(options: StackOptions = {}): Promise<Stack> {
  const kind = options.provider ?? 'local'
  checkOptions(kind, options)
  const base = kind === 'memory' ? `/stack-${randomUUID()}` : await realpath(await mkdtemp(join(tmpdir(), 'dsh-stack-')))
  const dir = join(base, 'work')
  const outside = join(base, 'outside')
  let world: World | undefined
  const fibers: Fiber<Context>[] = []
  const ctx = new Context()
  const dispose = async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
    await world?.close()
    // A command cut off on its way (an E2B connection dropped by a test) may still be finishing in
    // the sandbox's folder: removing it retries until that last write is in.
    if (kind !== 'memory') await rm(base, { recursive: true, force: true, maxRetries: 10 })
  }
  try {
    if (kind !== 'memory') await makeDirs(base, dir, outside)
    world = await openWorld(kind, dir, options)
    const log = new CallLog()
    await loadParts(ctx, world, log, options, fibers)
    await expectAllRunning(ctx, fibers)
    return stackApi({ ctx, dir, outside, log, world, dispose })
  } catch (error) {
    await dispose()
    throw error
  }
}

/** Refuses options that do not apply to the chosen provider. */
function checkOptions(kind: ProviderKind, options: StackOptions): void {
  if (options.rooted === true && kind !== 'local') throw new Error(`rooted applies to the local provider, not ${kind}`)
  if (options.sandboxUrl !== undefined && kind !== 'e2b') throw new Error(`sandboxUrl applies to the e2b provider, not ${kind}`)
}

/** The working and outside directories on disk, readable by an unprivileged child process (the permission cases run one). */
async function makeDirs(base: string, dir: string, outside: string): Promise<void> {
  await mkdir(dir)
  await mkdir(outside)
  await chmod(base, 0o755)
  await chmod(dir, 0o755)
}

/** The world the files live in, as `kind` and the options choose it. */
async function openWorld(kind: ProviderKind, dir: string, options: StackOptions): Promise<World> {
  if (kind === 'memory') return memoryWorld(dir)
  if (kind === 'local') return localWorld(dir, options.rooted === true, options.maxTextBytes)
  return await e2bWorld(dir, options.sandboxUrl, options.requestTimeoutMs)
}

/** Loads the stack's plugins in `options.order`, each awaited, its fiber added to `fibers` (for disposal). */
async function loadParts(ctx: Context, world: World, log: CallLog, options: StackOptions, fibers: Fiber<Context>[]): Promise<void> {
  const families = options.tools ?? ['tool-fs', 'str-replace-editor']
  const stale = options.staleRefusalObserves === undefined ? {} : { staleRefusalObserves: options.staleRefusalObserves }
  const loaders: Record<StackPart, (() => Fiber<Context>) | undefined> = {
    provider: () => world.load(ctx, log),
    policy: options.policy === false ? undefined : () => ctx.plugin(pluginOf(policyModule), options.policyConfig ?? {}),
    tools: () => ctx.plugin(pluginOf(toolsModule)),
    'tool-fs': families.includes('tool-fs') ? () => ctx.plugin(pluginOf(toolFsModule), { ...stale, ...options.toolFs }) : undefined,
    'str-replace-editor': families.includes('str-replace-editor') ? () => ctx.plugin(pluginOf(editorModule), { ...stale, ...options.editor }) : undefined,
  }
  for (const part of options.order ?? ['provider', 'policy', 'tools', ...families]) {
    const fiber = loaders[part]?.()
    if (fiber === undefined) continue
    fibers.push(fiber)
    await fiber
  }
}

interface StackParts {
  ctx: Context
  dir: string
  outside: string
  log: CallLog
  world: World
  dispose: () => Promise<void>
}

/** What a test holds of a running stack: its calls as a session, and the world's files. */
function stackApi({ ctx, dir, outside, log, world, dispose }: StackParts): Stack {
  const session: Session = { cwd: dir }
  const call = (name: string, args: unknown, who: Session | null = session) =>
    ctx.tools.execute({ name, arguments: args, ...(who === null ? {} : { agent: { session: who } }) })
  const text = async (name: string, args: unknown, who?: Session | null) => textOf(await call(name, args, who))
  const at = (name: string) => join(dir, name)
  return {
    ctx,
    fs: ctx.fs as FileSystem,
    dir,
    outside,
    session,
    log,
    call,
    text,
    async ok(name, args, who) {
      const result = await call(name, args, who)
      if (result.isError) throw new Error(`expected ${name} to succeed, got ${result.error?.code}: ${textOf(result)}`)
      return textOf(result)
    },
    path: at,
    put: (name, data) => world.put(at(name), data),
    bytes: (name) => world.bytes(at(name)),
    remove: (name) => world.remove(at(name)),
    dispose,
    [Symbol.asyncDispose]: dispose,
  }
}

/** The model text of a result. */
export function textOf(result: ToolResult): string {
  return result.content.map((part) => part.text).join('')
}

// FiberState.ACTIVE and .PENDING (a const enum cordis does not export at runtime).
const ACTIVE = 2
const PENDING = 0

/**
 * A stack whose tools silently never registered is worse than one that fails: once every plugin
 * is in, each must be running, or the kit says which service it still waits for.
 */
async function expectAllRunning(ctx: Context, fibers: Fiber<Context>[]): Promise<void> {
  for (const fiber of fibers) await fiber.await()
  for (const fiber of fibers) {
    if (fiber.state === ACTIVE) continue
    const missing = Object.keys(fiber.inject).filter((name) => ctx.get(name) === undefined)
    const why = fiber.state === PENDING ? `waits for ${missing.join(', ') || 'a service'}` : `is in state ${fiber.state}`
    throw new Error(`the stack did not start: ${fiber.name} ${why}`)
  }
}
