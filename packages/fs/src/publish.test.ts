import { describe, expect, it } from 'vitest'
import { FsError, fsError } from './errors'
import { publishGuarded, type PublicationSteps } from './publish'

/** A backend of one slot, its version a counter: every step is logged. */
function backend() {
  const log: string[] = []
  const state = { version: 1, content: 'old' }
  const steps = (content: string, extra: Partial<PublicationSteps<number, string, number>> = {}): PublicationSteps<number, string, number> => ({
    path: '/a.txt',
    probe: () => (log.push('probe'), state.version),
    stage: (seen) => (log.push(`stage@${seen}`), content),
    recheck: (seen) => {
      log.push('recheck')
      if (state.version !== seen) throw fsError('FS_STALE_VERSION', { path: '/a.txt' })
    },
    publish: (_seen, staged) => (log.push('publish'), state.content = staged, ++state.version),
    cleanup: (_seen, staged, published) => void log.push(`cleanup ${staged ?? '-'} ${published}`),
    ...extra,
  })
  return { log, state, steps }
}

describe('publishGuarded', () => {
  it('runs probe, stage, re-check and publish in order, then cleans up', async () => {
    const { log, state, steps } = backend()
    expect(await publishGuarded(steps('new'))).toBe(2)
    expect(log).toEqual(['probe', 'stage@1', 'recheck', 'publish', 'cleanup new true'])
    expect(state.content).toBe('new')
  })

  it('publishes nothing when the signal fires during staging, and removes what was staged', async () => {
    const { log, state, steps } = backend()
    const controller = new AbortController()
    const run = publishGuarded(steps('new', { signal: controller.signal, stage: () => (controller.abort(), log.push('stage'), 'new') }))
    await expect(run).rejects.toMatchObject({ code: 'FS_ABORTED' })
    expect(log).toEqual(['probe', 'stage', 'cleanup new false'])
    expect(state).toEqual({ version: 1, content: 'old' })
  })

  it('refuses at the re-check a competitor that wrote after the probe', async () => {
    const { log, state, steps } = backend()
    const run = publishGuarded(steps('new', { stage: () => (state.version++, state.content = 'theirs', 'new') }))
    await expect(run).rejects.toSatisfy((error) => FsError.is(error, 'FS_STALE_VERSION'))
    expect(state.content).toBe('theirs')
    expect(log).toEqual(['probe', 'recheck', 'cleanup new false'])
  })

  it('starts over from the probe when retry says so, after cleaning up the lost attempt', async () => {
    const { log, state, steps } = backend()
    let raced = false
    const stage = (seen: number) => {
      log.push(`stage@${seen}`)
      if (!raced) (raced = true, state.version++)
      return 'new'
    }
    const retry = (error: unknown) => (log.push('retry?'), FsError.is(error, 'FS_STALE_VERSION'))
    expect(await publishGuarded(steps('new', { stage, retry }))).toBe(3)
    expect(log).toEqual(['probe', 'stage@1', 'recheck', 'cleanup new false', 'retry?', 'probe', 'stage@2', 'recheck', 'publish', 'cleanup new true'])
  })

  it('never retries a refusal of the probe', async () => {
    const { log, steps } = backend()
    const run = publishGuarded(steps('new', { probe: () => { throw fsError('FS_STALE_VERSION', { path: '/a.txt', gone: true }) }, retry: () => true }))
    await expect(run).rejects.toMatchObject({ code: 'FS_STALE_VERSION' })
    expect(log).toEqual([])
  })
})
