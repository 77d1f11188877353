import { type FileSystem, MemoryFileSystem, MemoryVolume } from '@deepseek-ai/dsh-fs'
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

// Cordis takes the counting subclass as it takes the provider class itself.
const asPlugin = (provider: abstract new (...args: never[]) => FileSystem) => provider as unknown as typeof LocalFileSystem

/** Files in memory, at `dir` inside the volume; nothing on disk. */
export function memoryWorld(dir: string): World {
  const volume = new MemoryVolume()
  volume.mkdir(dir)
  return {
    load: (ctx, log) => ctx.plugin(asPlugin(countingProvider(MemoryFileSystem, log)), { cwd: dir, volume }),
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
export function localWorld(dir: string, rooted: boolean): World {
  return {
    load: (ctx, log) => ctx.plugin(asPlugin(countingProvider(LocalFileSystem, log)), rooted ? { cwd: dir, root: dir } : { cwd: dir }),
    ...diskAccess(),
    close: async () => {},
  }
}

/**
 * An E2B sandbox: the envd emulator serving `dir` as the sandbox home, reached through the real
 * `e2b` SDK in debug mode. Imported only when asked for, so other stacks never load the SDK.
 */
export async function e2bWorld(dir: string): Promise<World> {
  const [{ startEnvdEmulator }, { E2BFileSystem }] = await Promise.all([import('@deepseek-ai/dsh-envd-emulator'), import('@deepseek-ai/dsh-fs-e2b')])
  const emulator = await startEnvdEmulator({ root: dir })
  return {
    load: (ctx, log) => ctx.plugin(asPlugin(countingProvider(E2BFileSystem, log)), { sandboxId: 'emulated', debug: true, sandboxUrl: emulator.url, cwd: dir }),
    ...diskAccess(),
    close: () => emulator.close(),
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
