import type { ConformanceFixture, ExternalWorld } from '@deepseek-ai/dsh-fs/conformance'
import { MemoryFileSystem, type MemoryFileSystemConfig, MemoryVolume } from '@deepseek-ai/dsh-fs/memory'
import { Context } from 'cordis'
import { posix } from 'node:path'

/**
 * The conformance fixture of a memory-backed provider: a fresh volume with `/project`, the
 * provider loaded on it by Cordis, and the outside world writing that volume directly. Shared by
 * the specs of this package that run the suite over a variant of the reference provider.
 * `conformance.spec.ts` keeps its own copy on purpose: docs/providers.md quotes it whole, as the
 * test file an outside provider author starts from. (Not in `dsh-test-kit`: that package depends
 * on this one.)
 */
export async function memoryFixture<P extends MemoryFileSystem, C extends MemoryFileSystemConfig = MemoryFileSystemConfig>(
  Provider: new (ctx: Context, config: C) => P = MemoryFileSystem as unknown as new (ctx: Context, config: C) => P,
  config: Omit<C, 'cwd' | 'volume'> = {} as Omit<C, 'cwd' | 'volume'>,
): Promise<ConformanceFixture & { fs: P, volume: MemoryVolume, external: Required<Pick<ExternalWorld, 'makeReadOnly'>> }> {
  const volume = new MemoryVolume()
  const at = (name: string) => posix.join('/project', name)
  volume.mkdir('/project')
  const ctx = new Context()
  // Cordis types a plugin by its config; these classes take the memory provider's plus their own.
  const fiber = ctx.plugin(Provider as unknown as typeof MemoryFileSystem, { ...config, cwd: '/project', volume } as MemoryFileSystemConfig)
  await fiber
  return {
    fs: ctx.get('fs') as P,
    volume,
    path: at,
    external: {
      write: async (name, data) => volume.writeFile(at(name), data),
      read: async (name) => volume.readFile(at(name)),
      remove: async (name) => volume.remove(at(name)),
      mkdir: async (name) => volume.mkdir(at(name)),
      makeReadOnly: async (name) => volume.setReadOnly(at(name)),
    },
    beforeNextPublish: (hook) => volume.beforeNextPublish(hook),
    dispose: () => fiber.dispose(),
  }
}
