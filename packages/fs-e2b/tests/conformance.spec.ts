import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { join } from 'node:path'
import { freshDir, hostWorld, startProvider, useEmulatedSandbox } from './support/sandbox'

const sandbox = useEmulatedSandbox()

describeConformance('E2BFileSystem (real e2b SDK, envd emulator)', {
  capabilities: { symlinks: true, specialFiles: true, restoreMtime: true, readOnlyFiles: true },
  async setup() {
    const dir = await freshDir(sandbox.root)
    const provider = await startProvider(sandbox.relay.url)
    return {
      fs: provider.fs,
      path: (name) => join(dir, name),
      external: hostWorld(dir),
      beforeNextPublish: (hook) => sandbox.relay.beforeNextPublish(hook),
      dispose: provider.dispose,
    }
  },
})
