import type { FsObservation } from '@deepseek-ai/dsh-fs'
import { errorResult, type ToolExecution, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createHash } from 'node:crypto'
import type { Owner, StoredOutcome } from './ledger/types'
import { ownerOf } from './owners'
import type { Recorder } from './recorder'

/** The code of a result whose call ran but whose observations (or outcome) the ledger could not keep. */
export const LEDGER_UNAVAILABLE = 'LEDGER_UNAVAILABLE'

export interface CallOptions {
  /** 0: a repeated call runs again. */
  retryTtlMs: number
  /** Whether a tool only reads: its calls are never looked up as retries. */
  readOnly: (tool: string) => boolean
}

/**
 * What the policy does around a whole tool call (the `tools/execute` hook):
 * - before it, a mutating call that repeats one this owner made within `retryTtlMs` (same tool, same
 *   arguments) and whose targets this owner still sees as that call left them, is a retry of a
 *   call whose response was lost: it gets the first outcome back and does not run again;
 * - after it, the owner's observations are settled in the store (all but those of its own changes
 *   to versions it held, which may follow the reply: see the recorder), and a mutating call's
 *   outcome is stored for its retries, before the result goes back to the host.
 * A call is mutating when it asked for a write or edit guard (an intent): only those are stored.
 */
export class Calls {
  #guarded = new WeakMap<object, Set<string>>()

  constructor(private readonly recorder: Recorder, private readonly options: CallOptions) {}

  /** An intent ran for `actor` on `targetKey`: the call is a mutation of that target. */
  noteIntent(actor: object | undefined, targetKey: string): void {
    if (actor === undefined || this.options.retryTtlMs === 0) return
    let keys = this.#guarded.get(actor)
    if (keys === undefined) this.#guarded.set(actor, (keys = new Set()))
    keys.add(targetKey)
  }

  async around(exec: ToolExecution, input: unknown, next: () => Promise<ToolResult>): Promise<ToolResult> {
    const owner = ownerOf(exec)
    if (owner === undefined) return next()
    const id = this.options.retryTtlMs > 0 && !this.options.readOnly(exec.name) ? callIdOf(exec.name, input) : undefined
    if (id !== undefined) {
      try {
        const stored = await this.recorder.ledger.getOutcome(owner, id)
        if (stored !== undefined && await this.#stillAsLeft(owner, stored)) return stored.result
      } catch (error) {
        return this.#failed(error, undefined)
      }
    }
    const result = await next()
    try {
      // A stored outcome names what the call left the owner seeing: every write must be in first.
      await (id === undefined ? this.recorder.settleForReply(owner) : this.recorder.settle(owner))
      const keys = this.#guarded.get(exec)
      if (id !== undefined && keys !== undefined) await this.#store(owner, id, result, keys)
    } catch (error) {
      return this.#failed(error, result)
    }
    return result
  }

  /** Whether the owner's view of every target is the one the stored call left: else this is a new call. */
  async #stillAsLeft(owner: Owner, stored: StoredOutcome): Promise<boolean> {
    for (const [targetKey, left] of stored.targets) {
      const now = await this.recorder.get(owner, { targetKey: targetKey as never, displayPath: targetKey })
      if (JSON.stringify(now ?? null) !== JSON.stringify(left)) return false
    }
    return true
  }

  async #store(owner: Owner, id: string, result: ToolResult, keys: Set<string>): Promise<void> {
    const targets: StoredOutcome['targets'] = []
    for (const key of keys) targets.push([key, (await this.recorder.ledger.get(owner, key) ?? null) as FsObservation | null])
    const kept: StoredOutcome['result'] = { content: result.content.map((part) => ({ type: 'text', text: part.text })), isError: result.isError }
    if (result.error !== undefined) kept.error = result.error
    await this.recorder.ledger.putOutcome(owner, id, { result: kept, targets })
  }

  /** The ledger failed: the call fails saying so, and says what it did if it ran. */
  #failed(error: unknown, result: ToolResult | undefined): ToolResult {
    const reason = error instanceof Error ? error.message : String(error)
    if (result === undefined) return errorResult(`${reason}. Nothing was changed; retry the call once the ledger is reachable.`, LEDGER_UNAVAILABLE)
    const outcome = result.content.map((part) => part.text).join('\n')
    return errorResult(`${reason}, after the call ran. What it saw is not recorded, so read a file again before changing it.\n`
      + `The call's own result was:\n${outcome}`, LEDGER_UNAVAILABLE)
  }
}

/** The identity of a call for retries: its tool and its parsed arguments (defaults applied, so equal calls hash equal). */
export function callIdOf(tool: string, input: unknown): string {
  return createHash('sha256').update(JSON.stringify([tool, input]), 'utf8').digest('hex').slice(0, 32)
}
