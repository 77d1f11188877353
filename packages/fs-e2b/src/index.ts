import {
  FileSystem, FS_OPTIONAL_METHODS, type FsEditRequest, type FsInspectOptions, type FsListOptions, type FsReadOptions, type FsResolveOptions, type FsSearchOptions, type FsTarget,
  type FsEditOptions, type FsWalkOptions, type FsWriteOptions,
} from '@deepseek-ai/dsh-fs'
import { type Context, Service } from 'cordis'
import { Sandbox } from 'e2b'
import { posix } from 'node:path'
import { z } from 'zod'
import { openSandbox, probeSandbox } from './connect'
import { COMMAND_LINE_MAX } from './publish'
import { DEFAULT_FLEET_IDLE_MS, DEFAULT_FLEET_MAX_OPEN } from './fleet'
import { WorkspaceRoutes } from './routing'
import { SandboxFs } from './sandbox-fs'

export { SandboxFs, type SandboxFsOptions } from './sandbox-fs'
export { openSandbox, probeSandbox, type OpenedSandbox, type SandboxSource } from './connect'
export { DEFAULT_FLEET_IDLE_MS, DEFAULT_FLEET_MAX_OPEN, SandboxFleet, type SandboxFleetOptions } from './fleet'
export { MAX_REMEMBERED_PATHS } from './identities'
export { WorkspaceRoutes, workspaceOf, type WorkspaceSandbox } from './routing'

const WORKSPACE = /^[A-Za-z0-9_.-]{1,128}$/
const WorkspaceSandbox = z.union([
  z.string().min(1),
  z.object({ sandboxId: z.string().min(1), sandboxUrl: z.string().optional().describe('This sandbox\'s own envd URL (debug mode, the emulator).') }).strict(),
])

const Config = z.object({
  sandboxId: z.string().min(1).optional().describe('Connect to this running sandbox (never killed by the plugin).'),
  template: z.string().min(1).optional().describe('Create a sandbox from this template; it is killed on dispose.'),
  workspaces: z.record(z.string().regex(WORKSPACE, 'a workspace is 1-128 letters, digits, _, . or -'), WorkspaceSandbox).optional()
    .describe('Serve many running sandboxes: each call goes to the sandbox of its workspace (given per bearer token in the mcp tokens), connected on first use.'),
  idleSeconds: z.number().int().min(0).max(7 * 24 * 3600).default(DEFAULT_FLEET_IDLE_MS / 1000)
    .describe('With workspaces: a sandbox unused this long is disconnected (0: never); its next call connects again.'),
  maxOpen: z.number().int().min(1).max(100_000).default(DEFAULT_FLEET_MAX_OPEN)
    .describe('With workspaces: most sandboxes connected at once; one more disconnects the least recently used idle one.'),
  sandbox: z.custom<Sandbox>((value) => value instanceof Sandbox, 'expected an e2b Sandbox instance').optional()
    .describe('A sandbox handed over programmatically; the caller keeps ownership.'),
  apiKey: z.string().optional().describe('E2B API key; default: env E2B_API_KEY.'),
  cwd: z.string().optional().describe('Where relative paths resolve from; default: the sandbox user\'s home.'),
  debug: z.boolean().optional().describe('SDK debug mode: talk to envd at `sandboxUrl` directly (the emulator).'),
  sandboxUrl: z.string().optional(),
  domain: z.string().optional(),
  requestTimeoutMs: z.number().int().nonnegative().optional()
    .describe('Deadline of each request to the sandbox in ms (SDK default 60 s); a call past it fails FS_IO_ERROR, so a lost connection never hangs.'),
  inlineCommandMax: z.number().int().nonnegative()
    .max(COMMAND_LINE_MAX, `inlineCommandMax above ${COMMAND_LINE_MAX} bytes: Linux refuses a command line longer than one argument may be (128 KiB, MAX_ARG_STRLEN), so every write that large would fail E2BIG; use at most ${COMMAND_LINE_MAX}`)
    .optional()
    .describe('Largest publishing command (bytes) that carries the content inline, one request; larger content is uploaded first. 0: always upload. Default 120 KiB.'),
}).strict().refine(
  (config) => [config.sandbox, config.sandboxId, config.template, config.workspaces].filter((value) => value !== undefined).length === 1,
  { message: 'give exactly one of `sandboxId` (connect), `template` (create), `sandbox` (an instance) or `workspaces` (a sandbox per workspace)' },
)

export type E2BFileSystemConfig = z.input<typeof Config>

/**
 * `ctx.fs` inside an E2B sandbox, or (with `workspaces`) inside the sandbox of each call's
 * workspace. The service becomes available only once the sandbox is connected and probed (Cordis
 * keeps the fiber loading until `[Service.init]` settles), so dependents never see a provider that
 * cannot answer yet; a fleet of workspaces connects each sandbox on its first call instead.
 */
export class E2BFileSystem extends FileSystem {
  static Config = Config
  // Plain (not `#`) fields: Cordis hands out `ctx.fs` as a proxy over this object, and private
  // names do not pass through a proxy.
  private readonly config: z.output<typeof Config>
  private core: SandboxFs | undefined
  private routes: WorkspaceRoutes | undefined

  constructor(ctx: Context, config: E2BFileSystemConfig) {
    super(ctx, SandboxFs.capabilities)
    this.config = config as z.output<typeof Config>
    // The optional methods (remove, rename, ...), each to the sandbox of the call, named once in
    // FS_OPTIONAL_METHODS: own properties, so they exist exactly when declared.
    for (const method of FS_OPTIONAL_METHODS) {
      if (!SandboxFs.capabilities[method]) continue
      const forward = (...args: unknown[]) => this.run((core) => (core[method] as (...args: unknown[]) => Promise<unknown>).apply(core, args))
      Object.defineProperty(this, method, { value: forward, writable: true, configurable: true })
    }
  }

  async [Service.init](): Promise<void> {
    if (this.config.workspaces !== undefined) return this.serveWorkspaces(this.config.workspaces)
    const { sandbox, owned } = await openSandbox(this.config)
    // Registered before the probe, so a sandbox we created is killed even if the probe fails.
    if (owned) this.ctx.effect(() => () => void sandbox.kill().catch(() => undefined), 'e2b sandbox')
    const { home } = await probeSandbox(sandbox)
    const cwd = this.config.cwd === undefined ? home : posix.resolve(home, this.config.cwd)
    this.core = new SandboxFs({ sandbox, cwd, home, ...(this.config.inlineCommandMax === undefined ? {} : { inlineCommandMax: this.config.inlineCommandMax }) })
  }

  /** Routes every tool call to its workspace's sandbox; nothing is connected before a call needs it. */
  private serveWorkspaces(workspaces: NonNullable<z.output<typeof Config>['workspaces']>): void {
    const { apiKey, debug, sandboxUrl, domain, requestTimeoutMs, cwd, inlineCommandMax } = this.config
    const connection = { apiKey, debug, sandboxUrl, domain, requestTimeoutMs }
    const routes = new WorkspaceRoutes(workspaces, {
      connection, idleMs: this.config.idleSeconds * 1000, maxOpen: this.config.maxOpen,
      ...(cwd === undefined ? {} : { cwd }), ...(inlineCommandMax === undefined ? {} : { inlineCommandMax }),
    })
    this.routes = routes
    this.ctx.effect(() => () => routes.fleet.close(), 'e2b sandbox fleet')
    // The event is declared by dsh-tools; this provider only needs its shape, not the package.
    const on = this.ctx.on as (name: string, listener: (exec: unknown, input: unknown, next: () => Promise<unknown>) => Promise<unknown>) => () => void
    on.call(this.ctx, 'tools/execute', (exec, _input, next) => routes.around(exec, next))
  }

  /** The sandbox this provider talks to (for callers that need its id or other SDK calls); none when it serves workspaces. */
  get sandbox(): Sandbox {
    return this.ready.sandbox
  }

  resolve(path: string, opts?: FsResolveOptions) {
    return this.run((core) => core.resolve(path, opts))
  }

  override resolveForMutation(path: string, opts?: FsResolveOptions) {
    return this.run((core) => core.resolveForMutation(path, opts))
  }

  override resolveForDiscovery(path: string, opts?: FsResolveOptions) {
    return this.run((core) => core.resolveForDiscovery(path, opts))
  }

  override inspect(path: string, opts?: FsInspectOptions) {
    return this.run((core) => core.inspect(path, opts))
  }

  stat(target: FsTarget, signal?: AbortSignal) {
    return this.run((core) => core.stat(target, signal))
  }

  readText(target: FsTarget, opts?: FsReadOptions | AbortSignal) {
    return this.run((core) => core.readText(target, opts))
  }

  streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    if (this.routes === undefined) return this.ready.streamBytes(target, signal)
    const core = this.run(async (found) => found)
    return (async function* () {
      yield* (await core).streamBytes(target, signal)
    })()
  }

  listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions) {
    return this.run((core) => core.listDir(target, signal, opts))
  }

  writeText(target: FsTarget, content: string, opts?: FsWriteOptions) {
    return this.run((core) => core.writeText(target, content, opts))
  }

  editText(target: FsTarget, edit: FsEditRequest, opts?: FsEditOptions) {
    return this.run((core) => core.editText(target, edit, opts))
  }

  override editTextMany(target: FsTarget, edits: readonly FsEditRequest[], opts?: FsEditOptions) {
    return this.run((core) => core.editTextMany(target, edits, opts))
  }

  override walk(root: FsTarget, options: FsWalkOptions, signal?: AbortSignal) {
    return this.run((core) => core.walk(root, options, signal))
  }

  override search(root: FsTarget, options: FsSearchOptions, signal?: AbortSignal) {
    return this.run((core) => core.search(root, options, signal))
  }

  /** `call` on the one sandbox, or on the current call's workspace's sandbox (no extra step for the one sandbox). */
  private run<T>(call: (core: SandboxFs) => Promise<T>): Promise<T> {
    return this.routes === undefined ? call(this.ready) : this.routes.use(call)
  }

  private get ready(): SandboxFs {
    if (this.routes !== undefined) throw new Error('E2BFileSystem serves a sandbox per workspace: there is no one sandbox')
    if (!this.core) throw new Error('E2BFileSystem is not connected yet: inject `fs` and wait for it')
    return this.core
  }
}

export default E2BFileSystem
