import type { Context } from 'cordis'
import { FileSystem } from './service'
import { FS_OPTIONAL_METHODS } from './types'
import type {
  FsCapabilities, FsDirListing, FsEditOptions, FsEditOutcome, FsEditRequest, FsInfo, FsListOptions, FsReadOptions, FsResolveOptions, FsTarget,
  FsWriteOptions, FsWriteOutcome,
} from './types'

type Required = 'resolve' | 'stat' | 'readText' | 'streamBytes' | 'listDir' | 'writeText' | 'editText'
type Optional = 'resolveForMutation' | 'resolveForDiscovery' | 'inspect' | 'streamText' | 'streamBytesFrom' | 'walk' | 'search' | 'editTextMany' | 'remove' | 'rename'

/**
 * A backend: the `FileSystem` methods without Cordis (`LocalDisk`, `SandboxFs`). The required
 * ones, and any optional one it does better than the contract's default.
 */
export type FsBackend = Pick<FileSystem, Required> & Partial<Pick<FileSystem, Optional>>

/** The optional methods that have a default in the contract. */
const DEFAULTED = ['resolveForMutation', 'resolveForDiscovery', 'inspect', 'streamText', 'streamBytesFrom', 'walk', 'search', 'editTextMany'] as const
const REQUIRED: readonly Required[] = ['resolve', 'stat', 'readText', 'streamBytes', 'listDir', 'writeText', 'editText']

/**
 * A `FileSystem` that hands every call to its `backend`: the plugin class of a provider whose I/O
 * lives in a Cordis-free backend is then its config, its lifecycle and a `backend` getter. An
 * optional method the backend leaves out takes the contract's default; `remove` and `rename`
 * exist exactly when `capabilities` declares them (the backend must then have them).
 */
export abstract class ForwardingFileSystem extends FileSystem {
  constructor(ctx: Context, capabilities: FsCapabilities) {
    super(ctx, capabilities)
    // Own properties that close over the instance itself: called through `ctx.fs`, a method's `this`
    // is Cordis's tracing proxy, where each `this.backend` costs new proxies. `remove` and `rename`
    // exist only when declared, so `typeof fs.remove === 'function'` says what the provider declared.
    const forwarded = [...REQUIRED, ...DEFAULTED, ...FS_OPTIONAL_METHODS.filter((method) => capabilities[method])]
    const own = Object.getPrototypeOf(this) as Record<string, unknown>
    for (const method of forwarded) {
      // A method the provider's class overrides stays its own.
      if (method in ForwardingFileSystem.prototype && own[method] !== (ForwardingFileSystem.prototype as unknown as Record<string, unknown>)[method]) continue
      const fallback = (FileSystem.prototype as unknown as Record<string, (...args: unknown[]) => unknown>)[method]
      const forward = (...args: unknown[]): unknown => {
        const backend = this.backend as unknown as Record<string, ((...args: unknown[]) => unknown) | undefined>
        const call = backend[method]
        return call ? call.apply(backend, args) : fallback!.apply(this, args)
      }
      Object.defineProperty(this, method, { value: forward, writable: true, configurable: true })
    }
  }

  /** Where calls go; it may throw while the provider is not ready (a sandbox not yet connected). */
  abstract get backend(): FsBackend

  resolve(path: string, opts?: FsResolveOptions): Promise<FsTarget> {
    return this.backend.resolve(path, opts)
  }

  stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
    return this.backend.stat(target, signal)
  }

  readText(target: FsTarget, opts?: FsReadOptions | AbortSignal): Promise<string> {
    return this.backend.readText(target, opts)
  }

  streamBytes(target: FsTarget, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    return this.backend.streamBytes(target, signal)
  }

  listDir(target: FsTarget, signal?: AbortSignal, opts?: FsListOptions): Promise<FsDirListing> {
    return this.backend.listDir(target, signal, opts)
  }

  writeText(target: FsTarget, content: string, opts?: FsWriteOptions): Promise<FsWriteOutcome> {
    return this.backend.writeText(target, content, opts)
  }

  editText(target: FsTarget, edit: FsEditRequest, opts?: FsEditOptions): Promise<FsEditOutcome> {
    return this.backend.editText(target, edit, opts)
  }
}

/**
 * The defaulted methods, on the class's prototype (so a subclass's `super.inspect(...)` reaches
 * them): the backend's own method when it has one, else the contract's default, decided at each
 * call, since a backend may not exist yet when the provider is made.
 */
for (const name of DEFAULTED) {
  const fallback = FileSystem.prototype[name] as (...args: unknown[]) => unknown
  Object.defineProperty(ForwardingFileSystem.prototype, name, {
    value(this: ForwardingFileSystem, ...args: unknown[]): unknown {
      const { backend } = this
      const own = backend[name] as ((...args: unknown[]) => unknown) | undefined
      return own ? own.apply(backend, args) : fallback.apply(this, args)
    },
    writable: true,
    configurable: true,
  })
}
