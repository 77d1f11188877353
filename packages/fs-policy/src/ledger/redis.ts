import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { Redis } from 'ioredis'
import { ownerKey } from '../owners'
import { Expectations, RECORD, type RecordAttempt, recordAttempt } from './redis-record'
import { type Ledger, LedgerError, type LedgerLimits, type Owner, type StoredOutcome } from './types'

type Client = Redis & {
  dshRecord(entry: string, index: string, counter: string, alone: string, ttl: number, cap: number, prefix: string, target: string,
    expected: string, value: string, version: string, from: string): Promise<string | number>
}

/** Sends after which a record gives up, when other writers keep changing its entry (each send is one round trip). */
const RECORD_ATTEMPTS = 4
/** Most entries whose last known text is kept as the next record's expectation. */
const EXPECTATIONS_MAX = 10_000

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
 * What the process last read or wrote of an entry only serves as the expectation of its next
 * record, which Redis checks (see redis-record.ts).
 * Commands are never queued while disconnected and each has a timeout, so a lost Redis fails the
 * calls that need it promptly (with a `LedgerError` naming the URL) instead of holding them.
 */
export class RedisLedger implements Ledger {
  readonly label: string
  #expected = new Expectations(EXPECTATIONS_MAX)

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
    client.defineCommand('dshRecord', { numberOfKeys: 3, lua: RECORD })
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
    const entry = `dsh:o:${ownerKey(owner)}:${targetKey}`
    const text = await this.#run(() => this.client.get(entry))
    this.#expected.set(entry, text)
    return text === null ? undefined : JSON.parse(text) as FsObservation
  }

  /** Stores `observation` as is (nothing combined with it). */
  async put(owner: Owner, targetKey: string, observation: FsObservation): Promise<void> {
    const text = JSON.stringify(observation)
    await this.#send(owner, targetKey, { alone: text, expected: '', value: text, versions: ['', ''] })
  }

  /**
   * Records `observation` over what the owner holds, in one round trip when this process knows the
   * entry Redis holds (it read or wrote it last): the edit's own guard lookup, or its previous
   * record. Otherwise, or when another writer changed it, Redis answers with the entry and the
   * record is sent again over it.
   */
  async record(owner: Owner, targetKey: string, observation: FsObservation): Promise<boolean> {
    const entry = `dsh:o:${ownerKey(owner)}:${targetKey}`
    let attempt = recordAttempt(observation, this.#expected.get(entry))
    // The observation's own object may change after this call returns: what is sent again is a copy.
    const copy = JSON.stringify(observation)
    // One connection: Redis runs its commands in the order they were sent, so a lookup sent after
    // this one sees what it stored.
    for (let sent = 1; ; sent++) {
      const held = await this.#send(owner, targetKey, attempt)
      if (held === null) return sent === 1
      if (sent === RECORD_ATTEMPTS) throw new LedgerError(`the Redis ledger at ${this.label} failed: ${targetKey} kept changing while being recorded`)
      attempt = recordAttempt(JSON.parse(copy) as FsObservation, held)
    }
  }

  /** One send of the script; `null` once stored, else the entry Redis holds instead of the expected one. */
  async #send(owner: Owner, targetKey: string, attempt: RecordAttempt): Promise<string | null> {
    const key = ownerKey(owner)
    const prefix = `dsh:o:${key}:`
    const reply = await this.#run(() => this.client.dshRecord(prefix + targetKey, `dsh:oi:${key}`, `dsh:oc:${key}`, attempt.alone,
      this.limits.entryTtlMs, this.limits.maxEntriesPerOwner, prefix, targetKey, attempt.expected, attempt.value, ...attempt.versions))
    const held = typeof reply === 'string' ? reply : null
    this.#expected.set(prefix + targetKey, held ?? (reply === 1 ? attempt.value : attempt.alone))
    return held
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
