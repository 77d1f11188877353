import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { join } from 'node:path'
import { freshDir, hostWorld, startProvider, useEmulatedSandbox } from './support/sandbox'

const sandbox = useEmulatedSandbox()

describeConformance('E2BFileSystem (real e2b SDK, envd emulator)', {
  capabilities: { symlinks: true, specialFiles: true, restoreMtime: true, readOnlyFiles: true, remote: true },
  async setup() {
    const dir = await freshDir(sandbox.root)
    // The deadline a lost connection is given up after; the suite only asks that it exists.
    const provider = await startProvider(sandbox.relay.url, { requestTimeoutMs: 5_000 })
    return {
      fs: provider.fs,
      path: (name) => join(dir, name),
      external: hostWorld(dir),
      beforeNextPublish: (hook) => sandbox.relay.beforeNextPublish(hook),
      dropConnection: async () => sandbox.relay.drop(),
      async dispose() {
        await provider.dispose()
        sandbox.relay.restore()
      },
    }
  },
})
