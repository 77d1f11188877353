import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { recorded } from '../observations'

/**
 * Records one observation over what the owner held, in one round trip, and trims the owner to the
 * cap, atomically. The combination (`recorded`: seen lines carried over an edit, or added up across
 * reads of one version) is computed by the process, not in Lua, so the script is told two values:
 * ARGV[1] the observation alone, ARGV[7] it combined with ARGV[6], the entry the process expects
 * Redis to hold. The stored entry matters only when its version is the one observed (ARGV[8]) or
 * the one the change started from (ARGV[9]); otherwise, or when there is none, the value alone is
 * stored. When it matters and is not the expected one, nothing is written and the script returns
 * the stored entry, which the process combines with and sends again; else 1 if it stored ARGV[7], 0 if ARGV[1].
 * KEYS: the entry, the owner's index (a sorted set of target keys by write order), its write counter.
 * ARGV[2..5]: TTL in ms, cap, the entry key prefix of this owner, the target key.
 * Entries expire on their own in Redis' clock (so expiry, an evicting `maxmemory` policy or a
 * FLUSHALL only ever make a target unseen); the index and counter live as long as the last write.
 * An index member whose entry expired is the oldest, so the cap trims it first.
 */
export const RECORD = `
local value = ARGV[1]
local stored = 0
local held = redis.call('GET', KEYS[1])
if held then
  local ok, entry = pcall(cjson.decode, held)
  local version = ok and type(entry) == 'table' and entry.kind == 'present' and entry.version or nil
  if version ~= nil and (version == ARGV[8] or version == ARGV[9]) then
    if held ~= ARGV[6] then return held end
    value = ARGV[7]
    stored = 1
  end
end
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
local order = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], order, ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local gone = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #gone, 2 do redis.call('DEL', ARGV[4] .. gone[i]) end
end
return stored`

/** What the script is sent for one attempt: `value` is what it stores when the expected entry is held. */
export interface RecordAttempt {
  alone: string
  expected: string
  value: string
  versions: [observed: string, from: string]
}

/**
 * The attempt that records `observation` over `expected` (the entry's text as last read or written
 * here, '' when none is known). A version that no entry can have ('') fills an absent one.
 */
export function recordAttempt(observation: FsObservation, expected: string): RecordAttempt {
  const alone = JSON.stringify(recorded(undefined, observation))
  const present = observation.kind === 'present' ? observation : undefined
  const versions: RecordAttempt['versions'] = [present?.version ?? '', present?.from?.version ?? '']
  if (expected === '') return { alone, expected, value: alone, versions }
  let held: FsObservation | undefined
  try {
    held = JSON.parse(expected) as FsObservation
  } catch {
    // Not an entry this ledger wrote: stored over, as if unseen.
  }
  return { alone, expected, value: held === undefined ? alone : JSON.stringify(recorded(held, observation)), versions }
}

/**
 * The entries this process last read or wrote, per entry key: only ever sent as the script's
 * expectation, never used to answer a lookup, so an entry Redis lost or another replica changed
 * costs one more round trip, never a wrong answer. Bounded: the oldest is forgotten first.
 */
export class Expectations {
  #texts = new Map<string, string>()

  constructor(private readonly max: number) {}

  get(key: string): string {
    return this.#texts.get(key) ?? ''
  }

  set(key: string, text: string | null): void {
    this.#texts.delete(key)
    if (text === null) return
    this.#texts.set(key, text)
    if (this.#texts.size > this.max) this.#texts.delete(this.#texts.keys().next().value!)
  }
}
