import { ForwardingFileSystem } from '@deepseek-ai/dsh-fs/kit'
import { type Context, Service } from 'cordis'
import { Sandbox } from 'e2b'
import { posix } from 'node:path'
import { z } from 'zod'
import { openSandbox, probeSandbox } from './connect'
import { COMMAND_LINE_MAX } from './publish'
import { SandboxFs } from './sandbox-fs'

export { SandboxFs, type SandboxFsOptions } from './sandbox-fs'
export { openSandbox, probeSandbox, type OpenedSandbox, type SandboxSource } from './connect'
export { DEFAULT_FLEET_IDLE_MS, DEFAULT_FLEET_MAX_OPEN, SandboxFleet, type SandboxFleetOptions } from './fleet'
export { MAX_REMEMBERED_PATHS } from './identities'

const Config = z.object({
  sandboxId: z.string().min(1).optional().describe('Connect to this running sandbox (never killed by the plugin).'),
  template: z.string().min(1).optional().describe('Create a sandbox from this template; it is killed on dispose.'),
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
  (config) => [config.sandbox, config.sandboxId, config.template].filter((value) => value !== undefined).length === 1,
  { message: 'give exactly one of `sandboxId` (connect), `template` (create) or `sandbox` (an instance)' },
)

export type E2BFileSystemConfig = z.input<typeof Config>

/**
 * `ctx.fs` inside an E2B sandbox. The service becomes available only once the sandbox is
 * connected and probed (Cordis keeps the fiber loading until `[Service.init]` settles), so
 * dependents never see a provider that cannot answer yet.
 */
export class E2BFileSystem extends ForwardingFileSystem {
  static Config = Config
  // Plain (not `#`) fields: Cordis hands out `ctx.fs` as a proxy over this object, and private
  // names do not pass through a proxy.
  private readonly config: z.output<typeof Config>
  private core: SandboxFs | undefined

  constructor(ctx: Context, config: E2BFileSystemConfig) {
    super(ctx, SandboxFs.capabilities)
    this.config = config as z.output<typeof Config>
  }

  async [Service.init](): Promise<void> {
    const { sandbox, owned } = await openSandbox(this.config)
    // Registered before the probe, so a sandbox we created is killed even if the probe fails.
    if (owned) this.ctx.effect(() => () => void sandbox.kill().catch(() => undefined), 'e2b sandbox')
    const { home } = await probeSandbox(sandbox)
    const cwd = this.config.cwd === undefined ? home : posix.resolve(home, this.config.cwd)
    this.core = new SandboxFs({ sandbox, cwd, home, ...(this.config.inlineCommandMax === undefined ? {} : { inlineCommandMax: this.config.inlineCommandMax }) })
  }

  /** The sandbox this provider talks to (for callers that need its id or other SDK calls). */
  get sandbox(): Sandbox {
    return this.backend.sandbox
  }

  /** The connected backend; before `[Service.init]` has settled there is none, and a call throws. */
  get backend(): SandboxFs {
    if (!this.core) throw new Error('E2BFileSystem is not connected yet: inject `fs` and wait for it')
    return this.core
  }
}

export default E2BFileSystem
