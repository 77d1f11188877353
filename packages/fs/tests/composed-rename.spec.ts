import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { composedRename } from '@deepseek-ai/dsh-fs/kit'
import { MemoryFileSystem } from '@deepseek-ai/dsh-fs/memory'
import type { FsRenameOptions, FsTarget } from '@deepseek-ai/dsh-fs'
import { memoryFixture } from './support/memory-fixture'

/** A provider with a `remove` of its own and the composed `rename`: the default a provider author can take. */
class ComposedRenameFileSystem extends MemoryFileSystem {
  override rename(source: FsTarget, destination: FsTarget, opts?: FsRenameOptions) {
    return composedRename(this, source, destination, opts)
  }
}

describeConformance('composedRename over MemoryFileSystem', {
  capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, readOnlyFiles: true, remove: true, rename: true },
  groups: ['removal'],
  setup: () => memoryFixture(ComposedRenameFileSystem),
})
