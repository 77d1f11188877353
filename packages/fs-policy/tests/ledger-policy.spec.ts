import { type FsObservation, type FsTarget, type FsTargetKey, type FsVersion } from '@deepseek-ai/dsh-fs'
import { hasBinary, type RedisServer, stack, startRedis, textOf } from '@deepseek-ai/dsh-test-kit'
import { Context } from 'cordis'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as mod from '../src/index'

// The policy over each ledger, through the real tools: what the config accepts, what survives a
// restart, retries that return the first outcome, and a ledger that fails mid-run.

const policy = mod.default ?? mod
const target = (path: string): FsTarget => ({ targetKey: path as FsTargetKey, displayPath: path })
const present = (version: string): FsObservation => ({ kind: 'present', version: version as FsVersion })
const redisAvailable = hasBinary('redis-server')

let dir: string
let redis: RedisServer | undefined

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-ledger-policy-'))
  if (redisAvailable) redis = await startRedis()
})

afterAll(async () => {
  await redis?.[Symbol.asyncDispose]()
  await rm(dir, { recursive: true, force: true })
})

describe('the config', () => {
  it('refuses an unknown key, naming it', async () => {
    await expect(new Context().plugin(policy, { ledgr: 'memory' } as never)).rejects.toThrow(/ledgr/)
  })

  it('refuses a ledger it does not know, saying which it knows', async () => {
    await expect(new Context().plugin(policy, { ledger: 'mongodb://x' })).rejects.toThrow('use memory, file:<path> or redis://host:port[/db]')
    await expect(new Context().plugin(policy, { ledger: 'redis://127.0.0.1:6379/x' })).rejects.toThrow('must be a number')
    await expect(new Context().plugin(policy, { ledger: 'file:' })).rejects.toThrow('file: needs a path')
  })

  it('fails to start on an unreachable Redis, naming the URL', async () => {
    await expect(new Context().plugin(policy, { ledger: 'redis://127.0.0.1:1/2', timeoutMs: 500 }))
      .rejects.toThrow('cannot reach the Redis ledger at redis://127.0.0.1:1/2')
  })
})

describe('a persistent ledger', () => {
  it('keeps a named owner\'s observations across a restart of the policy, but not a session object\'s', async () => {
    const ledger = `file:${join(dir, 'restart.journal')}`
    const named = { agent: { session: { owner: 'agent-1' } } }
    const anonymous = { agent: { session: {} } }
    const first = new Context()
    const fiber = await first.plugin(policy, { ledger })
    first.emit('fs/observed', target('/a'), present('v1'), named)
    first.emit('fs/observed', target('/a'), present('v1'), anonymous)
    // The write is durable once the owner's next decision (or the call's end) has settled it.
    expect(await first.waterfall('fs/edit-intent', target('/a'), named, () => undefined)).toEqual({ version: 'v1' })
    await fiber.dispose()
    const second = new Context()
    const again = await second.plugin(policy, { ledger })
    try {
      expect(await second.waterfall('fs/edit-intent', target('/a'), { agent: { session: { owner: 'agent-1' } } }, () => undefined)).toEqual({ version: 'v1' })
      // A restarted process has new session objects: what an object owner saw is gone with it.
      await expect(second.waterfall('fs/edit-intent', target('/a'), { agent: { session: {} } }, () => undefined)).rejects.toMatchObject({ code: 'FS_NOT_OBSERVED' })
      await expect(second.waterfall('fs/edit-intent', target('/a'), { agent: { session: { owner: 'agent-2' } } }, () => undefined)).rejects.toMatchObject({ code: 'FS_NOT_OBSERVED' })
    } finally {
      await again.dispose()
    }
  })
})

describe('retries', () => {
  it('are off by default: the same edit sent twice changes the file twice (the seed behaviour)', async () => {
    await using s = await stack({ tools: ['tool-fs'] })
    await s.put('log.txt', 'END\n')
    await s.ok('read', { file_path: s.path('log.txt') })
    const edit = { file_path: s.path('log.txt'), old_string: 'END', new_string: 'one\nEND' }
    await s.ok('edit', edit)
    await s.ok('edit', edit)
    expect((await s.bytes('log.txt'))!.toString()).toBe('one\none\nEND\n')
  })

  it('return the first outcome to a repeated mutating call, which does not run again', async () => {
    await using s = await stack({ tools: ['tool-fs'], policyConfig: { retryTtlSeconds: 60 } })
    const session = { cwd: s.dir, owner: 'agent' }
    await s.put('log.txt', 'END\n')
    await s.ok('read', { file_path: s.path('log.txt') }, session)
    const edit = { file_path: s.path('log.txt'), old_string: 'END', new_string: 'one\nEND' }
    const first = await s.call('edit', edit, session)
    // Another session object of the same owner: a retry after the response was lost, on a new connection.
    const retried = await s.call('edit', edit, { cwd: s.dir, owner: 'agent' })
    expect(retried).toEqual(first)
    expect((await s.bytes('log.txt'))!.toString()).toBe('one\nEND\n')
    // A different owner with the same arguments is not a retry: it has not read the file.
    expect((await s.call('edit', edit, { cwd: s.dir, owner: 'other' })).error?.code).toBe('FS_NOT_OBSERVED')
  })

  it('run again once the owner has moved on from what the first call left', async () => {
    await using s = await stack({ tools: ['tool-fs'], policyConfig: { retryTtlSeconds: 60 } })
    const session = { cwd: s.dir, owner: 'agent' }
    await s.put('log.txt', 'END\n')
    await s.ok('read', { file_path: s.path('log.txt') }, session)
    const edit = { file_path: s.path('log.txt'), old_string: 'END', new_string: 'one\nEND' }
    await s.ok('edit', edit, session)
    await s.ok('edit', { file_path: s.path('log.txt'), old_string: 'one', new_string: 'two' }, session)
    await s.ok('edit', edit, session)
    expect((await s.bytes('log.txt'))!.toString()).toBe('two\none\nEND\n')
  })

  it('return a refusal as it was, so a retry of a stale edit does not apply to text the owner never saw', async () => {
    await using s = await stack({ tools: ['tool-fs'], staleRefusalObserves: true, policyConfig: { retryTtlSeconds: 60 } })
    const session = { cwd: s.dir, owner: 'agent' }
    await s.put('a.txt', 'x = 1\n')
    await s.ok('read', { file_path: s.path('a.txt') }, session)
    await s.put('a.txt', 'x = 1\ny = 2\n')
    const edit = { file_path: s.path('a.txt'), old_string: 'x = 1', new_string: 'x = 3' }
    const first = await s.call('edit', edit, session)
    expect(first.error?.code).toBe('FS_STALE_VERSION')
    expect(await s.call('edit', edit, session)).toEqual(first)
    expect((await s.bytes('a.txt'))!.toString()).toBe('x = 1\ny = 2\n')
  })
})

describe.runIf(redisAvailable)('a Redis ledger that goes away while running', () => {
  it('fails the calls that need it at once, saying so, and changes nothing', async () => {
    await using s = await stack({ tools: ['tool-fs'], policyConfig: { ledger: redis!.url, retryTtlSeconds: 60 } })
    const session = { cwd: s.dir, owner: 'agent' }
    await s.put('a.txt', 'one\n')
    await s.ok('read', { file_path: s.path('a.txt') }, session)
    await redis!.kill()
    try {
      const edit = await s.call('edit', { file_path: s.path('a.txt'), old_string: 'one', new_string: 'two' }, session)
      expect(edit.isError).toBe(true)
      expect(textOf(edit)).toContain(`the Redis ledger at ${redis!.url} failed`)
      expect((await s.bytes('a.txt'))!.toString()).toBe('one\n')
      const read = await s.call('read', { file_path: s.path('a.txt') }, session)
      expect(read.error?.code).toBe(mod.LEDGER_UNAVAILABLE)
      expect(textOf(read)).toContain(`the Redis ledger at ${redis!.url} failed`)
      expect(textOf(read)).toContain('read a file again before changing it')
    } finally {
      await redis!.restart()
    }
  })
})

describe.runIf(redisAvailable)('an owner\'s own change through a Redis ledger', () => {
  it('is seen by its next lookup at once, though the reply did not wait for it', async () => {
    const root = new Context()
    const fiber = await root.plugin(policy, { ledger: `${redis!.url}/3` })
    try {
      const actor = { agent: { session: { owner: 'next-lookup' } } }
      root.emit('fs/observed', target('/a'), present('v1'), actor)
      expect(await root.waterfall('fs/edit-intent', target('/a'), actor, () => undefined)).toEqual({ version: 'v1' })
      for (let version = 2; version <= 20; version++) {
        // What an edit records: the version it made, from the one it held. The lookup is sent right behind it.
        const from = { version: `v${version - 1}` as FsVersion, changes: [{ line: 1, removedLines: 1, addedLines: 1 }] }
        root.emit('fs/observed', target('/a'), { kind: 'present', version: `v${version}` as FsVersion, from }, actor)
        expect(await root.waterfall('fs/edit-intent', target('/a'), actor, () => undefined)).toEqual({ version: `v${version}` })
      }
    } finally {
      await fiber.dispose()
    }
  })
})

describe.runIf(redisAvailable)('a Redis ledger that stops answering', () => {
  it('fails the call within timeoutMs, naming the URL, instead of hanging; calls work again once it answers', async () => {
    await using s = await stack({ tools: ['tool-fs'], policyConfig: { ledger: `${redis!.url}/2`, timeoutMs: 300 } })
    const session = { cwd: s.dir, owner: 'agent' }
    await s.put('a.txt', 'one\n')
    await s.ok('read', { file_path: s.path('a.txt') }, session)
    redis!.pause()
    try {
      const edit = await s.call('edit', { file_path: s.path('a.txt'), old_string: 'one', new_string: 'two' }, session)
      expect(edit.isError).toBe(true)
      expect(textOf(edit)).toContain(`the Redis ledger at ${redis!.url}/2 failed`)
      expect((await s.bytes('a.txt'))!.toString()).toBe('one\n')
    } finally {
      redis!.resume()
    }
    await s.ok('edit', { file_path: s.path('a.txt'), old_string: 'one', new_string: 'two' }, session)
    expect((await s.bytes('a.txt'))!.toString()).toBe('two\n')
  })
})

describe('the seen lines, through a persistent ledger', () => {
  for (const kind of ['file', 'redis'] as const) {
    it.runIf(kind === 'file' || redisAvailable)(`add up across reads in a ${kind} ledger, so a write after reading every part goes through`, async () => {
      const ledger = kind === 'file' ? `file:${join(dir, 'seen.journal')}` : `${redis!.url}/4`
      await using s = await stack({ tools: ['tool-fs'], policyConfig: { ledger, seenBeforeReplace: true } })
      const session = { cwd: s.dir, owner: `seen-${kind}` }
      await s.put('a.txt', 'one\ntwo\nthree\nfour\n')
      await s.ok('read', { file_path: s.path('a.txt'), offset: 1, limit: 2 }, session)
      const early = await s.call('write', { file_path: s.path('a.txt'), content: 'new\n' }, session)
      expect(early.error?.code).toBe('FS_NOT_SEEN')
      // Another session object of the same owner reads the rest: the union is what the ledger holds.
      await s.ok('read', { file_path: s.path('a.txt'), offset: 3, limit: 2 }, { cwd: s.dir, owner: `seen-${kind}` })
      await s.ok('write', { file_path: s.path('a.txt'), content: 'new\n' }, session)
      expect((await s.bytes('a.txt'))!.toString()).toBe('new\n')
    })
  }
})
