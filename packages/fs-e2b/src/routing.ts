import { FsError } from '@deepseek-ai/dsh-fs'
import { AsyncLocalStorage } from 'node:async_hooks'
import { SandboxFleet, type SandboxFleetOptions } from './fleet'
import type { SandboxFs } from './sandbox-fs'

/** Where one workspace's calls go: a running sandbox, and (for the emulator or a debug setup) its own envd URL. */
export type WorkspaceSandbox = string | { sandboxId: string; sandboxUrl?: string | undefined }

/**
 * The workspace a tool call belongs to: a string `workspace` on its session, which the MCP server
 * sets from the bearer token the request carried (see dsh-mcp `tokens`). The tool execution is
 * otherwise opaque here, as the actor is to every provider.
 */
export function workspaceOf(exec: unknown): string | undefined {
  const workspace = (exec as { agent?: { session?: { workspace?: unknown } } } | undefined)?.agent?.session?.workspace
  return typeof workspace === 'string' ? workspace : undefined
}

/**
 * One process, many sandboxes: each tool call runs in the async context of its workspace (entered
 * around the call, by the `tools/execute` hook), and every provider call made within it goes to
 * that workspace's sandbox through a `SandboxFleet`, which connects it on first use and drops it
 * when idle. A call without a workspace, or with one the config does not name, reaches no sandbox.
 */
export class WorkspaceRoutes {
  readonly fleet: SandboxFleet
  readonly #current = new AsyncLocalStorage<string | undefined>()
  readonly #sandboxes: ReadonlyMap<string, { sandboxId: string; sandboxUrl?: string | undefined }>

  constructor(workspaces: Record<string, WorkspaceSandbox>, options: SandboxFleetOptions) {
    this.#sandboxes = new Map(Object.entries(workspaces).map(([name, to]) => [name, typeof to === 'string' ? { sandboxId: to } : to]))
    const urls = new Map([...this.#sandboxes.values()].flatMap((to) => (to.sandboxUrl === undefined ? [] : [[to.sandboxId, to.sandboxUrl] as const])))
    this.fleet = new SandboxFleet({
      ...options,
      connectionOf: (sandboxId) => {
        const sandboxUrl = urls.get(sandboxId)
        return sandboxUrl === undefined ? undefined : { ...options.connection, sandboxUrl }
      },
    })
  }

  /** Runs `next` (a whole tool call) as a call of `exec`'s workspace. */
  around<T>(exec: unknown, next: () => Promise<T>): Promise<T> {
    return this.#current.run(workspaceOf(exec), next)
  }

  /** Runs `call` on the sandbox of the current call's workspace. */
  use<T>(call: (fs: SandboxFs) => Promise<T>): Promise<T> {
    const workspace = this.#current.getStore()
    const to = workspace === undefined ? undefined : this.#sandboxes.get(workspace)
    if (to === undefined) return Promise.reject(unrouted(workspace))
    return this.fleet.use(to.sandboxId, call)
  }
}

function unrouted(workspace: string | undefined): FsError {
  const reason = workspace === undefined
    ? 'this agent has no workspace, so no sandbox: give its bearer token a workspace in the mcp config (tokens: [{ token, workspace }])'
    : `no sandbox is configured for the workspace ${workspace}: add it to the workspaces of the fs-e2b config`
  return new FsError('FS_PERMISSION_DENIED', reason)
}
