import type { LedgerSpec, PolicyConfig } from '../config'
import { FileLedger } from './file'
import { MemoryLedger } from './memory'
import type { Ledger, LedgerLimits } from './types'

/** The limits of a config, in the units the stores use. */
export function limitsOf(config: PolicyConfig, now?: () => number): LedgerLimits {
  return {
    entryTtlMs: config.entryTtlSeconds * 1000,
    maxEntriesPerOwner: config.maxEntriesPerOwner,
    maxOwners: config.maxOwners,
    retryTtlMs: config.retryTtlSeconds * 1000,
    ...(now === undefined ? {} : { now }),
  }
}

/** Opens the store a spec names; a store that cannot be reached rejects with a `LedgerError` naming it. */
export async function openLedger(spec: LedgerSpec, limits: LedgerLimits, timeoutMs: number): Promise<Ledger> {
  switch (spec.kind) {
    case 'memory': return new MemoryLedger(limits)
    case 'file': return FileLedger.open(spec.path, limits)
    case 'redis': {
      // On demand: the client (ioredis and its dependencies) is loaded only by a Redis ledger.
      const { RedisLedger } = await import('./redis')
      return RedisLedger.open(spec.url, limits, timeoutMs)
    }
  }
}
