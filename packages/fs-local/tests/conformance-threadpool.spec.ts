import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { expect, it } from 'vitest'
import { callsInline } from '../src/calls'
import { localFixture } from './fixture'

// The same contract with every call in the thread pool (`inlineCalls: 'never'`, as on a network
// mount): the inline lookups of `calls.ts` must change nothing but the cost. Spec files run in
// fresh module graphs, so this one file's providers decide the mode alone.
describeConformance('LocalFileSystem, every call in the thread pool', {
  capabilities: { symlinks: true, specialFiles: true, restoreMtime: true, readOnlyFiles: true, editLines: true, remove: true, rename: true },
  setup: () => localFixture({ inlineCalls: 'never' }, true),
})

it('ran with inline calls off', async () => {
  await localFixture({ inlineCalls: 'never' })
  expect(callsInline()).toBe(false)
})
