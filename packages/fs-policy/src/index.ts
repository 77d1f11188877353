import { FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import type { ToolRegistry } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { Calls } from './calls'
import { Config, type LedgerSpec, parseLedgerSpec, type PolicyConfigInput } from './config'
import { openLedger, limitsOf } from './ledger/open'
import { type Ledger, LedgerError } from './ledger/types'
import { editExpectation, writeIntent } from './observations'
import { ownerOf } from './owners'
import { Recorder } from './recorder'

export { editExpectation, recorded, writeIntent } from './observations'
export { checkWholeReplacement, observedAfter } from './seen-rule'
export { ownerOf, ownerKey } from './owners'
export { Config, parseLedgerSpec, type LedgerSpec, type PolicyConfig, type PolicyConfigInput } from './config'
export { type Ledger, LedgerError, type LedgerLimits, type Owner, type StoredOutcome } from './ledger/types'
export { MemoryLedger } from './ledger/memory'
export { FileLedger } from './ledger/file'
// `RedisLedger` is not re-exported: importing it loads the Redis client (open a `redis://` ledger with `openLedger`).
export type { RedisLedger } from './ledger/redis'
export { decodeJournal, encodeRecord, type JournalRecord } from './ledger/journal'
export { openLedger, limitsOf } from './ledger/open'
export { Recorder } from './recorder'
export { Calls, callIdOf, LEDGER_UNAVAILABLE } from './calls'
// Re-exported so that the `fs/*` event augmentation travels with this package's types.
export type { FsEditExpectation, FsObservation, FsSeenLines } from '@deepseek-ai/dsh-fs'

export const name = 'dsh-fs-policy'

/**
 * Read-before-edit and compare-and-swap freshness, through events only: no service, no `inject`, no
 * filesystem I/O (a `file:` ledger writes its own journal, never the workspace). The provider
 * checks the chosen guard inside its critical section, so the policy never stats or compares
 * versions itself (that check would race the write anyway); a ledger that lost an entry can only
 * make a target unseen, which refuses or re-reads. Both intent listeners answer without calling
 * `next()`: this policy owns the decision slot.
 */
export async function apply(ctx: Context, input: PolicyConfigInput): Promise<void> {
  const config = Config.parse(input)
  const spec = parseLedgerSpec(config.ledger) as LedgerSpec
  let ledger: Ledger | undefined
  await ctx.effect(async () => {
    ledger = await openLedger(spec, limitsOf(config), config.timeoutMs)
    // The store is dropped with the fiber, so a reload starts from what the store holds (memory: nothing).
    return () => ledger!.close()
  }, `ledger ${spec.kind}`)
  const recorder = new Recorder(ledger!)
  const calls = new Calls(recorder, {
    retryTtlMs: config.retryTtlSeconds * 1000,
    readOnly: (tool) => (ctx.get('tools') as ToolRegistry | undefined)?.get(tool)?.annotations.readOnlyHint === true,
  })
  // Synchronous for a memory or file store with nothing pending: no await is added to its intents.
  const lookup = (target: FsTarget, actor: object | undefined) => {
    calls.noteIntent(actor, target.targetKey)
    const held = recorder.lookup(ownerOf(actor), target)
    return held instanceof Promise ? held.catch((error: unknown) => unreachable(error, target)) : held
  }
  ctx.on('fs/observed', (target, observation, actor) => recorder.record(ownerOf(actor), target, observation))
  const { seenBeforeReplace } = config
  ctx.on('fs/write-intent', async (target, actor) => {
    const held = lookup(target, actor)
    return writeIntent(held instanceof Promise ? await held : held, { target, seenBeforeReplace })
  })
  ctx.on('fs/edit-intent', async (target, actor) => {
    const held = lookup(target, actor)
    return editExpectation(held instanceof Promise ? await held : held, target)
  })
  // Memory without retries never has a write pending nor an outcome to keep: no hook, so its calls
  // take no more steps than before the ledger existed.
  if (spec.kind !== 'memory' || config.retryTtlSeconds > 0) ctx.on('tools/execute', (exec, args, next) => calls.around(exec, args, next))
}

/** The ledger failed before a guard was chosen: the intent fails, and nothing is changed. */
function unreachable(error: unknown, target: FsTarget): never {
  if (!(error instanceof LedgerError)) throw error
  throw new FsError('FS_IO_ERROR', `${error.message}; nothing was changed: retry once the ledger is reachable`, { path: target.displayPath, cause: error })
}

export default { name, Config, apply }
