import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { expect, it } from 'vitest'
import { localFixture } from './fixture'

// The same contract with every call in the thread pool (`inlineCalls: 'never'`, as on a network
// mount): the inline lookups of `calls.ts` must change nothing but the cost. Each fixture's
// provider has a `LocalProcess` of its own, so it decides the mode alone.
describeConformance('LocalFileSystem, every call in the thread pool', {
  capabilities: { symlinks: true, specialFiles: true, restoreMtime: true, readOnlyFiles: true, editLines: true, remove: true, rename: true },
  setup: () => localFixture({ inlineCalls: 'never' }, true),
})

it('ran with inline calls off', async () => {
  const fx = await localFixture({ inlineCalls: 'never' })
  expect(fx.fs.disk.process.calls.inline).toBe(false)
})
