import type { FsObservation, FsVersion } from '@deepseek-ai/dsh-fs'
import { hasBinary, type RedisServer, startRedis } from '@deepseek-ai/dsh-test-kit'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileLedger, type Ledger, type LedgerLimits, MemoryLedger, type StoredOutcome } from '../src/index'
import { RedisLedger } from '../src/ledger/redis'

// One contract, every store: what the policy relies on, whichever ledger the config names.

const present = (version: string, extra: Record<string, unknown> = {}) => ({ kind: 'present', version: version as FsVersion, ...extra }) as FsObservation
const absent: FsObservation = { kind: 'absent' }
const outcome = (text: string): StoredOutcome => ({ result: { content: [{ type: 'text', text }], isError: false }, targets: [['/a', present('v1')]] })

/** A clock the test moves: expiry never waits for real time. */
function clock() {
  let now = 1_000_000
  return { now: () => now, advance: (ms: number) => { now += ms } }
}

interface StoreKind {
  name: string
  persistent: boolean
  /** Expiry runs on the clock the test moves (Redis expires on its own clock: checked by PTTL below). */
  testClock: boolean
  /** The store's server is not installed here: its cases are listed as skipped. */
  skip?: boolean
  open(limits: LedgerLimits): Promise<Ledger>
}

let redis: RedisServer | undefined
let dir: string
let files = 0
let databases = 0
const redisAvailable = hasBinary('redis-server')

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-ledgers-'))
  if (redisAvailable) redis = await startRedis()
})

afterAll(async () => {
  await redis?.[Symbol.asyncDispose]()
  await rm(dir, { recursive: true, force: true })
})

/** Each test gets a fresh journal or database; `reopen` opens the same one again, as a restarted process would. */
function kinds(): StoreKind[] {
  return [
    { name: 'memory', persistent: false, testClock: true, open: async (limits) => new MemoryLedger(limits) },
    { name: 'file', persistent: true, testClock: true, open: freshFile() },
    { name: 'redis', persistent: true, testClock: false, open: freshRedis(), skip: !redisAvailable },
  ]
}

function freshFile() {
  let path: string | undefined
  return (limits: LedgerLimits) => FileLedger.open(path ??= join(dir, `journal-${++files}`), limits)
}

function freshRedis() {
  let url: string | undefined
  return (limits: LedgerLimits) => RedisLedger.open(url ??= `${redis!.url}/${++databases % 16}`, limits, 2_000)
}

const limits = (time: ReturnType<typeof clock>, more: Partial<LedgerLimits> = {}): LedgerLimits =>
  ({ entryTtlMs: 60_000, maxEntriesPerOwner: 100, maxOwners: 100, retryTtlMs: 10_000, now: time.now, ...more })


for (const kind of kinds()) {
  describe.skipIf(kind.skip === true)(`the ${kind.name} ledger`, () => {
    // Cases on the test's clock exist only for the stores that expire on it (Redis: the PTTL case below).
    const onTestClock = (name: string, body: () => Promise<void>) => { if (kind.testClock) it(name, body) }
    it('returns what was put, per owner and target, with every field of the observation', async () => {
      const store = await kind.open(limits(clock()))
      try {
        await store.put('alice', '/a', present('v1', { seen: [{ start: 1, end: 5 }] }))
        await store.put('alice', '/b', absent)
        await store.put('bob', '/a', present('v9'))
        expect(await store.get('alice', '/a')).toEqual(present('v1', { seen: [{ start: 1, end: 5 }] }))
        expect(await store.get('alice', '/b')).toEqual(absent)
        expect(await store.get('bob', '/a')).toEqual(present('v9'))
        expect(await store.get('bob', '/b')).toBeUndefined()
        expect(await store.get('carol', '/a')).toBeUndefined()
        await store.put('alice', '/a', absent)
        expect(await store.get('alice', '/a')).toEqual(absent)
      } finally {
        await store.close()
      }
    })

    it('keeps a session object owner apart from every other owner', async () => {
      const store = await kind.open(limits(clock()))
      try {
        const one = {}
        const two = {}
        await store.put(one, '/a', present('v1'))
        expect(await store.get(one, '/a')).toEqual(present('v1'))
        expect(await store.get(two, '/a')).toBeUndefined()
      } finally {
        await store.close()
      }
    })

    onTestClock('forgets an observation once its TTL has passed since it was recorded', async () => {
      const time = clock()
      const store = await kind.open(limits(time, { entryTtlMs: 5_000 }))
      try {
        await store.put('alice', '/a', present('v1'))
        time.advance(4_000)
        expect(await store.get('alice', '/a')).toEqual(present('v1'))
        await store.put('alice', '/b', present('v2'))
        time.advance(1_000)
        expect(await store.get('alice', '/a')).toBeUndefined()
        expect(await store.get('alice', '/b')).toEqual(present('v2'))
      } finally {
        await store.close()
      }
    })

    it('keeps at most maxEntriesPerOwner targets per owner, forgetting the least recently recorded', async () => {
      const store = await kind.open(limits(clock(), { maxEntriesPerOwner: 3 }))
      try {
        for (const name of ['/a', '/b', '/c']) await store.put('alice', name, present(name))
        await store.put('alice', '/a', present('again'))
        await store.put('alice', '/d', present('/d'))
        await store.put('bob', '/x', present('/x'))
        expect(await store.get('alice', '/b')).toBeUndefined()
        for (const name of ['/c', '/d']) expect(await store.get('alice', name)).toEqual(present(name))
        expect(await store.get('alice', '/a')).toEqual(present('again'))
        expect(await store.get('bob', '/x')).toEqual(present('/x'))
      } finally {
        await store.close()
      }
    })

    onTestClock('keeps outcomes of calls for the retry TTL', async () => {
      const time = clock()
      const store = await kind.open(limits(time, { retryTtlMs: 3_000 }))
      try {
        await store.putOutcome('alice', 'call-1', outcome('done'))
        expect(await store.getOutcome('alice', 'call-1')).toEqual(outcome('done'))
        expect(await store.getOutcome('bob', 'call-1')).toBeUndefined()
        time.advance(3_000)
        expect(await store.getOutcome('alice', 'call-1')).toBeUndefined()
      } finally {
        await store.close()
      }
    })

    it(kind.persistent ? 'still holds every entry after a restart' : 'holds nothing after a restart', async () => {
      const time = clock()
      const first = await kind.open(limits(time))
      await first.put('alice', '/a', present('v1'))
      await first.putOutcome('alice', 'call-1', outcome('done'))
      await first.close()
      const second = await kind.open(limits(time))
      try {
        expect(await second.get('alice', '/a')).toEqual(kind.persistent ? present('v1') : undefined)
        expect(await second.getOutcome('alice', 'call-1')).toEqual(kind.persistent ? outcome('done') : undefined)
      } finally {
        await second.close()
      }
    })
  })
}

describe.runIf(redisAvailable)('the redis ledger, against the server itself', () => {
  async function raw(db: number) {
    const { Redis } = await import('ioredis')
    const client = new Redis(`${redis!.url}/${db}`)
    return client
  }

  it('gives every entry and outcome the configured TTL in Redis, so Redis expires them', async () => {
    const store = await RedisLedger.open(`${redis!.url}/14`, limits(clock(), { entryTtlMs: 50_000, retryTtlMs: 7_000 }), 2_000)
    const client = await raw(14)
    try {
      await store.put('ttl', '/a', present('v1'))
      await store.putOutcome('ttl', 'call', outcome('done'))
      const entry = await client.pttl('dsh:o:ttl:/a')
      const kept = await client.pttl('dsh:r:ttl:call')
      expect(entry).toBeGreaterThan(40_000)
      expect(entry).toBeLessThanOrEqual(50_000)
      expect(kept).toBeGreaterThan(0)
      expect(kept).toBeLessThanOrEqual(7_000)
      await client.del('dsh:o:ttl:/a')
      expect(await store.get('ttl', '/a')).toBeUndefined()
    } finally {
      client.disconnect()
      await store.close()
    }
  })

  it('writes to the database the URL names and to no other', async () => {
    const store = await RedisLedger.open(`${redis!.url}/9`, limits(clock()), 2_000)
    const nine = await raw(9)
    const zero = await raw(0)
    try {
      await zero.flushdb()
      await store.put('db', '/a', present('v1'))
      expect(await nine.exists('dsh:o:db:/a')).toBe(1)
      expect(await zero.dbsize()).toBe(0)
    } finally {
      nine.disconnect()
      zero.disconnect()
      await store.close()
    }
  })

  it('keeps no copy: after FLUSHALL every owner sees every target unseen, on every process', async () => {
    const url = `${redis!.url}/8`
    const one = await RedisLedger.open(url, limits(clock()), 2_000)
    const two = await RedisLedger.open(url, limits(clock()), 2_000)
    const client = await raw(8)
    try {
      await one.put('shared', '/a', present('v1'))
      expect(await two.get('shared', '/a')).toEqual(present('v1'))
      await client.flushall()
      expect(await one.get('shared', '/a')).toBeUndefined()
      expect(await two.get('shared', '/a')).toBeUndefined()
    } finally {
      client.disconnect()
      await one.close()
      await two.close()
    }
  })

  /** How many times Redis ran each command since the last call (INFO commandstats, reset by CONFIG RESETSTAT). */
  async function commandsSince(client: Awaited<ReturnType<typeof raw>>): Promise<Record<string, number>> {
    const info = await client.info('commandstats')
    await client.config('RESETSTAT')
    const counts: Record<string, number> = {}
    for (const [, name, calls] of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) counts[name!] = Number(calls)
    return counts
  }

  it('records an edit over what its guard lookup read in one command, combining the seen lines', async () => {
    const store = await RedisLedger.open(`${redis!.url}/7`, limits(clock()), 2_000)
    const client = await raw(7)
    try {
      await store.record!('edit', '/a', present('v1', { seen: { ranges: [[1, 4]], total: 4 } }))
      expect(await store.get('edit', '/a')).toMatchObject({ version: 'v1' })
      await commandsSince(client)
      // The edit replaced line 2 of v1, making v2: lines 1, 3 and 4 were seen before, line 2 is the edit's own.
      await store.record!('edit', '/a', present('v2', { from: { version: 'v1', changes: [{ line: 2, removedLines: 1, addedLines: 1 }] }, seen: { ranges: [[2, 2]] } }))
      // One EVALSHA and the commands run inside it (Redis counts those too); no GET before it.
      expect(await commandsSince(client)).toEqual({
        'config|resetstat': 1, evalsha: 1, get: 1, set: 1, incr: 1, zadd: 1, pexpire: 2, zcard: 1,
      })
      expect(await store.get('edit', '/a')).toEqual(present('v2', { seen: { ranges: [[1, 4]], total: 4 } }))
    } finally {
      client.disconnect()
      await store.close()
    }
  })

  it('combines with what another process stored meanwhile, so neither loses the other\'s seen lines', async () => {
    const url = `${redis!.url}/6`
    const one = await RedisLedger.open(url, limits(clock()), 2_000)
    const two = await RedisLedger.open(url, limits(clock()), 2_000)
    try {
      await one.record!('both', '/a', present('v1', { seen: { ranges: [[1, 2]] } }))
      await two.record!('both', '/a', present('v1', { seen: { ranges: [[5, 6]] } }))
      // `one` still expects what it wrote; Redis holds more, so `one` combines with that instead.
      await one.record!('both', '/a', present('v1', { seen: { ranges: [[3, 4]] } }))
      expect(await two.get('both', '/a')).toEqual(present('v1', { seen: { ranges: [[1, 6]] } }))
    } finally {
      await one.close()
      await two.close()
    }
  })

  it('never brings back what Redis lost: after FLUSHALL a record stores only what it observed', async () => {
    const store = await RedisLedger.open(`${redis!.url}/5`, limits(clock()), 2_000)
    const client = await raw(5)
    try {
      await store.record!('lost', '/a', present('v1', { seen: { ranges: [[1, 2]] } }))
      await client.flushall()
      await store.record!('lost', '/a', present('v1', { seen: { ranges: [[3, 4]] } }))
      expect(await store.get('lost', '/a')).toEqual(present('v1', { seen: { ranges: [[3, 4]] } }))
    } finally {
      client.disconnect()
      await store.close()
    }
  })

  it('refuses to start on an unreachable Redis with an error that names the URL', async () => {
    const { freePort } = await import('@deepseek-ai/dsh-test-kit')
    const port = await freePort()
    await expect(RedisLedger.open(`redis://127.0.0.1:${port}/3`, limits(clock()), 500))
      .rejects.toThrow(`cannot reach the Redis ledger at redis://127.0.0.1:${port}/3`)
  })

  it('fails calls at once with a text naming the URL when Redis goes away, and works again once it is back', async () => {
    const store = await RedisLedger.open(redis!.url, limits(clock()), 2_000)
    try {
      await store.put('gone', '/a', present('v1'))
      await redis!.kill()
      await expect(store.get('gone', '/a')).rejects.toThrow(`the Redis ledger at ${redis!.url} failed`)
      await expect(store.put('gone', '/a', present('v2'))).rejects.toThrow(`the Redis ledger at ${redis!.url} failed`)
      await redis!.restart()
      // Reconnection happens in the background: poll until a call gets through, then the store is empty (a fresh server).
      let seen: unknown = 'not yet'
      for (let attempt = 0; attempt < 100 && seen === 'not yet'; attempt++) {
        seen = await store.get('gone', '/a').catch(async () => { await new Promise((resolve) => setTimeout(resolve, 50)); return 'not yet' })
      }
      expect(seen).toBeUndefined()
    } finally {
      await store.close()
    }
  })
})

describe('the Redis URL in texts', () => {
  it('never shows a password', async () => {
    const { redisLabel } = await import('../src/ledger/redis')
    expect(redisLabel('redis://:s3cret@127.0.0.1:6379/2')).toBe('redis://127.0.0.1:6379/2')
    expect(redisLabel('redis://user:s3cret@db.internal:6380')).toBe('redis://db.internal:6380')
  })
})
