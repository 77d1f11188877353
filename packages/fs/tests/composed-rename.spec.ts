import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { composedRename } from '@deepseek-ai/dsh-fs/kit'
import { MemoryFileSystem, MemoryVolume } from '@deepseek-ai/dsh-fs/memory'
import type { FsRenameOptions, FsTarget } from '@deepseek-ai/dsh-fs'
import { Context } from 'cordis'
import { posix } from 'node:path'

/** A provider with a `remove` of its own and the composed `rename`: the default a provider author can take. */
class ComposedRenameFileSystem extends MemoryFileSystem {
  override rename(source: FsTarget, destination: FsTarget, opts?: FsRenameOptions) {
    return composedRename(this, source, destination, opts)
  }
}

describeConformance('composedRename over MemoryFileSystem', {
  capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, readOnlyFiles: true, remove: true, rename: true },
  groups: ['removal'],
  async setup() {
    const volume = new MemoryVolume()
    const at = (name: string) => posix.join('/project', name)
    volume.mkdir('/project')
    const ctx = new Context()
    const fiber = ctx.plugin(ComposedRenameFileSystem, { cwd: '/project', volume })
    await fiber
    return {
      fs: ctx.fs,
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
  },
})
