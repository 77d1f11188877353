import { describeConformance, type ExternalWorld } from '@deepseek-ai/dsh-fs/conformance'
import { MemoryFileSystem } from '@deepseek-ai/dsh-fs/memory'
import { Context } from 'cordis'

// Type-level tests, checked by `pnpm typecheck` and never run: a declared capability does not
// compile without the helper it needs. Each `@ts-expect-error` fails the typecheck if it stops erring.
const fs = new MemoryFileSystem(new Context())
const base: ExternalWorld = { write: async () => {}, read: async () => undefined, remove: async () => {}, mkdir: async () => {} }
const fixture = { fs, path: (name: string) => name, dispose: async () => {} }

export function capabilityTypes(): void {
  describeConformance('no capabilities, no helpers', {
    capabilities: { symlinks: false, specialFiles: false, restoreMtime: false },
    setup: async () => ({ ...fixture, external: base }),
  })

  describeConformance('symlinks without external.symlink', {
    capabilities: { symlinks: true, specialFiles: false, restoreMtime: false },
    // @ts-expect-error symlinks: true needs external.symlink
    setup: async () => ({ ...fixture, external: base }),
  })

  describeConformance('symlinks with external.symlink', {
    capabilities: { symlinks: true, specialFiles: false, restoreMtime: false },
    setup: async () => ({ ...fixture, external: { ...base, symlink: async () => {} } }),
  })

  describeConformance('special files without external.mkfifo', {
    capabilities: { symlinks: false, specialFiles: true, restoreMtime: false },
    // @ts-expect-error specialFiles: true needs external.mkfifo
    setup: async () => ({ ...fixture, external: base }),
  })

  describeConformance('restoreMtime without external.rewriteKeepingMtime', {
    capabilities: { symlinks: false, specialFiles: false, restoreMtime: true },
    // @ts-expect-error restoreMtime: true needs external.rewriteKeepingMtime
    setup: async () => ({ ...fixture, external: base }),
  })

  describeConformance('read-only files without external.makeReadOnly', {
    capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, readOnlyFiles: true },
    // @ts-expect-error readOnlyFiles: true needs external.makeReadOnly
    setup: async () => ({ ...fixture, external: base }),
  })

  describeConformance('a remote backend without dropConnection', {
    capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, remote: true },
    // @ts-expect-error remote: true needs dropConnection
    setup: async () => ({ ...fixture, external: base }),
  })

  describeConformance('a remote backend with dropConnection', {
    capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, remote: true },
    setup: async () => ({ ...fixture, external: base, dropConnection: async () => {} }),
  })

  const decidedAtRunTime = process.platform !== 'win32'
  describeConformance('a capability decided at run time', {
    capabilities: { symlinks: decidedAtRunTime, specialFiles: false, restoreMtime: false },
    // @ts-expect-error a capability typed boolean may be true, so its helper is required
    setup: async () => ({ ...fixture, external: base }),
  })
}
