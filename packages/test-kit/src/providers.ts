import type { FileSystem } from '@deepseek-ai/dsh-fs'
import { MemoryFileSystem, MemoryVolume } from '@deepseek-ai/dsh-fs/memory'
import { LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import type { Context } from 'cordis'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, posix } from 'node:path'
import { type CallLog, countingProvider } from './call-log'

export type ProviderKind = 'memory' | 'local' | 'e2b'

/** Where the files of a stack live, and how the outside world (another process) reaches them. */
export interface World {
  /** Loads the provider of `ctx.fs` into `ctx`, counting its calls in `log`. */
  load(ctx: Context, log: CallLog): ReturnType<Context['plugin']>
  put(path: string, data: string | Uint8Array): Promise<void>
  bytes(path: string): Promise<Buffer | undefined>
  remove(path: string): Promise<void>
  close(): Promise<void>
}

// Cordis takes the counting subclass as it takes the provider class itself (its static Config included).
function loadProvider(ctx: Context, provider: new (...args: never[]) => FileSystem, config: object): ReturnType<Context['plugin']> {
  return (ctx.plugin as (this: Context, plugin: object, config: object) => ReturnType<Context['plugin']>).call(ctx, provider, config)
}

/** Files in memory, at `dir` inside the volume; nothing on disk. */
export function memoryWorld(dir: string): World {
  const volume = new MemoryVolume()
  volume.mkdir(dir)
  return {
    load: (ctx, log) => loadProvider(ctx, countingProvider(MemoryFileSystem, log), { cwd: dir, volume }),
    put: async (path, data) => volume.writeFile(path, data),
    bytes: async (path) => {
      const bytes = volume.readFile(path)
      return bytes === undefined ? undefined : Buffer.from(bytes)
    },
    remove: async (path) => volume.remove(posix.normalize(path)),
    close: async () => {},
  }
}

/** The real local disk under `dir`, contained in it when `rooted` (as the shipped config is). */
export function localWorld(dir: string, rooted: boolean, maxTextBytes?: number): World {
  const config = { cwd: dir, ...(rooted ? { root: dir } : {}), ...(maxTextBytes === undefined ? {} : { maxTextBytes }) }
  return {
    load: (ctx, log) => loadProvider(ctx, countingProvider(LocalFileSystem, log, { composed: true }), config),
    ...diskAccess(),
    close: async () => {},
  }
}

/**
 * An E2B sandbox reached through the real `e2b` SDK in debug mode: the envd at `sandboxUrl`, or a
 * fresh envd emulator serving `dir` as the sandbox home. Imported only when asked for, so other
 * stacks never load the SDK. (The emulator takes absolute paths as host paths: `dir` works on any.)
 */
export async function e2bWorld(dir: string, sandboxUrl?: string, requestTimeoutMs?: number): Promise<World> {
  const { E2BFileSystem } = await import('@deepseek-ai/dsh-fs-e2b')
  const emulator = sandboxUrl === undefined ? await (await import('@deepseek-ai/dsh-envd-emulator')).startEnvdEmulator({ root: dir }) : undefined
  const url = sandboxUrl ?? emulator!.url
  return {
    load: (ctx, log) => loadProvider(ctx, countingProvider(E2BFileSystem, log), { sandboxId: 'emulated', debug: true, sandboxUrl: url, cwd: dir, ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) }),
    ...diskAccess(),
    close: async () => { await emulator?.close() },
  }
}

function diskAccess(): Pick<World, 'put' | 'bytes' | 'remove'> {
  return {
    async put(path, data) {
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, data)
    },
    bytes: (path) => readFile(path).catch(() => undefined),
    remove: (path) => rm(path, { recursive: true, force: true }),
  }
}
