import type { ConformanceFixture } from '@deepseek-ai/dsh-fs/conformance'
import { afterEach, describe, expect, it } from 'vitest'
import { connectionChecks } from '../src/conformance/connection-clauses'
import { Harness } from '../src/conformance/harness'
import { publicationChecks } from '../src/conformance/publication-clauses'
import { type Flaw, FlawedMemoryFileSystem, RemoteMemoryFileSystem } from './support/flawed-providers'
import { memoryFixture } from './support/memory-fixture'

// Each clause against the provider mistake it was written for: it fails on the flawed provider and
// passes on the same provider without the flaw, so neither outcome is an accident of the fixture.
const capabilities = { symlinks: false, specialFiles: false, restoreMtime: false }
const fixtures: ConformanceFixture[] = []
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.dispose()))
})

async function harness(flaw: Flaw | undefined): Promise<Harness> {
  const fixture = await memoryFixture(FlawedMemoryFileSystem, flaw === undefined ? {} : { flaw })
  fixtures.push(fixture)
  return Harness.of(capabilities, fixture)
}

describe.each([
  ['guard-at-probe-only', 'competitorUnderReplaceIfVersion', /expected FS_STALE_VERSION, but the operation succeeded/],
  ['visible-staging', 'noResidueInListings', /the listings seen while writes were held/],
  ['late-abort-ignored', 'abortBeforePublication', /expected FS_ABORTED, but the operation succeeded/],
  ['aborted-after-publish', 'abortAtEveryStep', /was changed by an aborted call/],
] as const)('a provider with the flaw %s', (flaw, check, failure) => {
  it(`fails the clause ${check}`, async () => {
    await expect(publicationChecks[check](await harness(flaw))).rejects.toThrow(failure)
  })

  it(`passes ${check} without the flaw`, async () => {
    await publicationChecks[check](await harness(undefined))
  })
})

describe('a remote provider whose connection drops', () => {
  const remote = async (deadlineMs?: number) => {
    const fixture = await memoryFixture(RemoteMemoryFileSystem, deadlineMs === undefined ? {} : { deadlineMs })
    fixtures.push(fixture)
    return Harness.of({ ...capabilities, remote: true }, {
      ...fixture,
      dropConnection: async () => fixture.fs.drop(),
    })
  }

  it('fails the clause when its first call after the drop hangs', async () => {
    // A short bound stands in for the suite's ten seconds: a call that never settles fails either.
    await expect(connectionChecks.failsPromptlyAfterDrop(await remote(), 300)).rejects.toThrow(/still pending after 300 ms/)
  })

  it('passes when every call gives up at its deadline with FS_IO_ERROR', async () => {
    await connectionChecks.failsPromptlyAfterDrop(await remote(50), 5_000)
  })
})
