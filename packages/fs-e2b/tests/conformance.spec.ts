import { describeConformance, type FixtureFor } from '@deepseek-ai/dsh-fs/conformance'
import { join } from 'node:path'
import { freshDir, hostWorld, startProvider, useEmulatedSandbox } from './support/sandbox'

const sandbox = useEmulatedSandbox()

const capabilities = { symlinks: true, specialFiles: true, restoreMtime: true, readOnlyFiles: true, remote: true, editLines: true, remove: true, rename: true } as const

// Small content travels inside the publishing command: staging and publication are one request, so
// there is no moment between them for the publication clauses' hook. Those clauses run on a provider
// that always uploads first (below); every other group runs on the default, inlining provider.
describeConformance('E2BFileSystem (real e2b SDK, envd emulator)', {
  capabilities,
  groups: ['reads', 'writes', 'edits', 'encodings', 'robustness', 'permissions', 'discovery', 'bounds', 'connection', 'fused', 'removal'],
  setup: () => fixture({}),
})

describeConformance('E2BFileSystem, content always uploaded before the publishing command', {
  capabilities,
  groups: ['publication'],
  setup: () => fixture({ inlineCommandMax: 0 }),
})

async function fixture(config: { inlineCommandMax?: number }): Promise<FixtureFor<typeof capabilities>> {
  const dir = await freshDir(sandbox.root)
  // The deadline a lost connection is given up after; the suite only asks that it exists.
  const provider = await startProvider(sandbox.relay.url, { requestTimeoutMs: 5_000, ...config })
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
}
