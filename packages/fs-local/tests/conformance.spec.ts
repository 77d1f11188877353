import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { localFixture } from './fixture'

describeConformance('LocalFileSystem', {
  capabilities: { symlinks: true, specialFiles: true, restoreMtime: true, readOnlyFiles: true, editLines: true, remove: true, rename: true },
  setup: () => localFixture(),
})

describeConformance('LocalFileSystem with a containment root', {
  capabilities: { symlinks: true, specialFiles: true, restoreMtime: true, readOnlyFiles: true, editLines: true, remove: true, rename: true },
  // The same contract must hold when every target is also checked against a root.
  setup: () => localFixture({}, true),
})
