import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { Redis } from 'ioredis'
import { ownerKey } from '../owners'
import { type Ledger, LedgerError, type LedgerLimits, type Owner, type StoredOutcome } from './types'

/**
 * Records one observation and trims its owner to the cap, in one round trip and atomically.
 * KEYS: the entry, the owner's index (a sorted set of target keys by write order), its write counter.
 * ARGV: value, TTL in ms, cap, the entry key prefix of this owner, the target key.
 * Entries expire on their own in Redis' clock (so expiry, an evicting `maxmemory` policy or a
 * FLUSHALL only ever make a target unseen); the index and counter live as long as the last write.
 * An index member whose entry expired is the oldest, so the cap trims it first.
 */
const PUT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local order = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], order, ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local gone = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #gone, 2 do redis.call('DEL', ARGV[4] .. gone[i]) end
end
return 1`

type Client = Redis & { dshPut(entry: string, index: string, counter: string, value: string, ttl: number, cap: number, prefix: string, target: string): Promise<number> }

/** The URL as shown in texts and logs: without a password. */
export function redisLabel(url: string): string {
  const parsed = new URL(url)
  parsed.password = ''
  parsed.username = ''
  return parsed.toString().replace(/\/$/, '')
}

/**
 * This module is imported only when a Redis ledger is opened (see open.ts), so that a memory or file
 * ledger does not load the Redis client at start.
 *
 * A ledger in the Redis database the URL names, shared by every process pointed at it. Nothing is
 * cached here: every read asks Redis, so an entry Redis lost is unseen on every replica at once.
 * Commands are never queued while disconnected and each has a timeout, so a lost Redis fails the
 * calls that need it promptly (with a `LedgerError` naming the URL) instead of holding them.
 */
export class RedisLedger implements Ledger {
  readonly label: string

  private constructor(private readonly client: Client, url: string, private readonly limits: LedgerLimits) {
    // Expiry is Redis' own (PX), on its clock: `limits.now` does not apply here.
    this.label = redisLabel(url)
  }

  /** Connects and pings; an unreachable or refusing server is an error naming the URL. */
  static async open(url: string, limits: LedgerLimits, timeoutMs: number): Promise<RedisLedger> {
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      // Keep reconnecting in the background, so calls work again once Redis is back.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    }) as Client
    // ioredis prints an unhandled 'error' event; failures reach the calls as rejections instead.
    client.on('error', () => {})
    client.defineCommand('dshPut', { numberOfKeys: 3, lua: PUT })
    const label = redisLabel(url)
    try {
      await client.connect()
      await client.ping()
    } catch (error) {
      client.disconnect()
      throw new LedgerError(`cannot reach the Redis ledger at ${label}: ${messageOf(error)}; start Redis there, or set the policy's ledger to another store`, { cause: error })
    }
    return new RedisLedger(client, url, limits)
  }

  async #run<T>(what: () => Promise<T>): Promise<T> {
    try {
      return await what()
    } catch (error) {
      throw new LedgerError(`the Redis ledger at ${this.label} failed: ${messageOf(error)}`, { cause: error })
    }
  }

  async get(owner: Owner, targetKey: string): Promise<FsObservation | undefined> {
    const text = await this.#run(() => this.client.get(`dsh:o:${ownerKey(owner)}:${targetKey}`))
    return text === null ? undefined : JSON.parse(text) as FsObservation
  }

  async put(owner: Owner, targetKey: string, observation: FsObservation): Promise<void> {
    const key = ownerKey(owner)
    const prefix = `dsh:o:${key}:`
    await this.#run(() => this.client.dshPut(prefix + targetKey, `dsh:oi:${key}`, `dsh:oc:${key}`, JSON.stringify(observation),
      this.limits.entryTtlMs, this.limits.maxEntriesPerOwner, prefix, targetKey))
  }

  async getOutcome(owner: Owner, id: string): Promise<StoredOutcome | undefined> {
    const text = await this.#run(() => this.client.get(`dsh:r:${ownerKey(owner)}:${id}`))
    return text === null ? undefined : JSON.parse(text) as StoredOutcome
  }

  async putOutcome(owner: Owner, id: string, outcome: StoredOutcome): Promise<void> {
    await this.#run(() => this.client.set(`dsh:r:${ownerKey(owner)}:${id}`, JSON.stringify(outcome), 'PX', this.limits.retryTtlMs))
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect())
  }
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.length === 0 ? 'no answer' : message
}
