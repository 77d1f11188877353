import { type FsObservation, type FsTarget, type FsTargetKey, type FsVersion, FsError } from '@deepseek-ai/dsh-fs'
import { stack } from '@deepseek-ai/dsh-test-kit'
import { Context } from 'cordis'
import { beforeEach, describe, expect, it } from 'vitest'
import * as mod from '../src/index'

const policy = mod.default ?? mod

const target = (path: string): FsTarget => ({ targetKey: path as FsTargetKey, displayPath: path })
const v = (version: string) => version as FsVersion
const actor = (session: object) => ({ callId: 'c', name: 'write', agent: { session } })

let root: Context
let session: object

async function boot(config?: object) {
  root = new Context()
  session = {}
  await root.plugin(policy, config)
}

const observe = (observation: FsObservation, t = target('/a')) => root.emit('fs/observed', t, observation, actor(session))
const writeIntent = (t = target('/a')) => root.waterfall('fs/write-intent', t, actor(session), () => undefined)

async function refusal(t = target('/a')): Promise<FsError> {
  try {
    await writeIntent(t)
  } catch (error) {
    if (FsError.is(error)) return error
    throw error
  }
  throw new Error('the write was allowed')
}

describe('the seen rule, off (the seed default)', () => {
  beforeEach(() => boot())

  it('lets any version seen present be replaced, however little of it was seen', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[10, 14]], total: 3000 } })
    expect(await writeIntent()).toEqual({ kind: 'replaceIfVersion', version: 'v1' })
  })
})

describe('the seen rule, on', () => {
  beforeEach(() => boot({ seenBeforeReplace: true }))

  it('refuses to replace a version seen in part with FS_NOT_SEEN, carrying what was seen', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[10, 14]], total: 3000 } })
    const error = await refusal()
    expect(error.code).toBe('FS_NOT_SEEN')
    expect(error.seen).toEqual({ ranges: [[10, 14]], total: 3000 })
    expect(error.message).toContain('/a has lines this session was not shown, from line 1 on')
  })

  it('allows the replacement once reads of one version cover every line', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[1, 2000]] } })
    expect((await refusal()).message).toContain('from line 2001 on')
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[2001, 3000]], total: 3000 } })
    expect(await writeIntent()).toEqual({ kind: 'replaceIfVersion', version: 'v1' })
  })

  it('forgets what was seen of an older version', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[1, 10]], total: 10 } })
    observe({ kind: 'present', version: v('v2'), seen: { ranges: [[1, 5]], total: 10 } })
    expect((await refusal()).seen).toEqual({ ranges: [[1, 5]], total: 10 })
  })

  it('carries what was seen over the session\'s own edit, moved by the change', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[1, 10]], total: 10 } })
    observe({ kind: 'present', version: v('v2'), from: { version: v('v1'), changes: [{ line: 3, removedLines: 1, addedLines: 2 }] } })
    expect(await writeIntent()).toEqual({ kind: 'replaceIfVersion', version: 'v2' })
  })

  it('carries nothing from a version the session did not hold', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[1, 10]], total: 10 } })
    observe({ kind: 'present', version: v('v3'), from: { version: v('v2'), changes: [] } })
    expect((await refusal()).seen).toEqual({ ranges: [] })
  })

  it('counts a present observation that says nothing of lines as nothing seen', async () => {
    observe({ kind: 'present', version: v('v1') })
    expect((await refusal()).code).toBe('FS_NOT_SEEN')
  })

  it('counts an empty version as seen once its line count is known', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [], total: 0 } })
    expect(await writeIntent()).toEqual({ kind: 'replaceIfVersion', version: 'v1' })
  })

  it('still lets unseen and absent targets only be created, and edits need only a present version', async () => {
    expect(await writeIntent(target('/new'))).toEqual({ kind: 'createIfAbsent' })
    observe({ kind: 'absent' }, target('/gone'))
    expect(await writeIntent(target('/gone'))).toEqual({ kind: 'createIfAbsent' })
    observe({ kind: 'present', version: v('v1'), seen: { ranges: [[10, 14]], total: 3000 } })
    expect(await root.waterfall('fs/edit-intent', target('/a'), actor(session), () => undefined)).toEqual({ version: 'v1' })
  })

  it('keeps the version and forgets a malformed seen field rather than throwing from the listener', async () => {
    observe({ kind: 'present', version: v('v1'), seen: { ranges: 'nonsense' } as never })
    const error = await refusal()
    expect([error.code, error.seen]).toEqual(['FS_NOT_SEEN', { ranges: [] }])
  })

  it('does not keep a reference to the seen ranges it was given', async () => {
    const ranges: Array<[number, number]> = [[1, 5]]
    observe({ kind: 'present', version: v('v1'), seen: { ranges, total: 10 } })
    ranges[0]![1] = 10
    expect((await refusal()).seen).toEqual({ ranges: [[1, 5]], total: 10 })
  })
})

describe('no I/O with the rule on', () => {
  it('decides from the observations alone, never asking the provider', async () => {
    await using s = await stack({ provider: 'memory', tools: [], policyConfig: { seenBeforeReplace: true } })
    const who = actor({})
    s.ctx.emit('fs/observed', target('/a'), { kind: 'present', version: v('v1'), seen: { ranges: [[1, 3]], total: 9 } }, who)
    s.ctx.emit('fs/observed', target('/b'), { kind: 'present', version: v('v1'), seen: { ranges: [[1, 9]], total: 9 } }, who)
    await expect(s.ctx.waterfall('fs/write-intent', target('/a'), who, () => undefined)).rejects.toMatchObject({ code: 'FS_NOT_SEEN' })
    expect(await s.ctx.waterfall('fs/write-intent', target('/b'), who, () => undefined)).toEqual({ kind: 'replaceIfVersion', version: 'v1' })
    expect(s.log.calls).toEqual([])
  })
})

describe('the config', () => {
  it('rejects an unknown key', async () => {
    await expect(new Context().plugin(policy, { seenBeforReplace: true } as never)).rejects.toThrow(/seenBeforReplace/)
  })
})
