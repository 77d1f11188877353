import { Context } from 'cordis'
import { posix } from 'node:path'
import { MemoryFileSystem, MemoryVolume } from '@deepseek-ai/dsh-fs/memory'
import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'

describeConformance('MemoryFileSystem', {
  capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, readOnlyFiles: true, editLines: true, remove: true, rename: true },
  async setup() {
    const volume = new MemoryVolume()
    const at = (name: string) => posix.join('/project', name)
    volume.mkdir('/project')
    const ctx = new Context()
    const fiber = ctx.plugin(MemoryFileSystem, { cwd: '/project', volume })
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
