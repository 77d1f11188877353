import type { FsObservation, FsTarget, FsTargetKey, FsVersion } from '@deepseek-ai/dsh-fs'
import { type ToolExecution, type ToolResult } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { Calls, LEDGER_UNAVAILABLE, LedgerError, limitsOf, MemoryLedger, Recorder, Config } from '../src/index'
import type { Ledger, Owner } from '../src/index'

// When a reply may leave before its observation is stored: a store whose writes the test completes
// by hand (the memory store underneath, each write held until released), so the order is exact.

class HeldStore implements Ledger {
  readonly label = 'held'
  readonly memory = new MemoryLedger(limitsOf(Config.parse({})))
  held: { release(): void; fail(error: Error): void }[] = []
  /** Settles once every record so far is released: a lookup answers after them, as on one Redis connection. */
  #queue: Promise<unknown> = Promise.resolve()

  record(owner: Owner, targetKey: string, observation: FsObservation): Promise<boolean> {
    const done = new Promise<boolean>((resolve, reject) => {
      this.held.push({
        release: () => { this.memory.put(owner, targetKey, observation); resolve(true) },
        fail: reject,
      })
    })
    this.#queue = Promise.all([this.#queue, done.catch(() => {})])
    return done
  }

  get(owner: Owner, targetKey: string): Promise<FsObservation | undefined> {
    return this.#queue.then(() => this.memory.get(owner, targetKey))
  }

  put(owner: Owner, targetKey: string, observation: FsObservation): void {
    this.memory.put(owner, targetKey, observation)
  }

  getOutcome(): undefined {
    return undefined
  }

  putOutcome(): void {}

  async close(): Promise<void> {}
}

const target: FsTarget = { targetKey: '/a' as FsTargetKey, displayPath: '/a' }
const v = (version: string) => version as FsVersion
const read: FsObservation = { kind: 'present', version: v('v1') }
const edited: FsObservation = { kind: 'present', version: v('v2'), from: { version: v('v1'), changes: [{ line: 1, removedLines: 1, addedLines: 1 }] } }
const ok: ToolResult = { content: [{ type: 'text', text: 'done' }], isError: false }

function setup() {
  const store = new HeldStore()
  const recorder = new Recorder(store)
  const calls = new Calls(recorder, { retryTtlMs: 0, readOnly: () => false })
  const exec = { callId: 'c', name: 'edit', signal: new AbortController().signal, agent: { session: { owner: 'agent' } } } as ToolExecution
  /** A call whose body records `observation`; resolves with the reply, or 'waiting' while it is held. */
  const call = (observation: FsObservation) => calls.around(exec, {}, async () => {
    recorder.record('agent', target, observation)
    return ok
  })
  return { store, recorder, call }
}

const settled = async <T>(promise: Promise<T>): Promise<T | 'waiting'> => Promise.race([promise, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))])

describe('a reply and the observation its call made', () => {
  it('waits for a read\'s observation: until it is stored there is no reply', async () => {
    const { store, call } = setup()
    const reply = call(read)
    expect(await settled(reply)).toBe('waiting')
    store.held[0]!.release()
    expect(await reply).toEqual(ok)
  })

  it('leaves before an edit\'s observation of the version it made from one it held; the owner\'s next lookup waits for it', async () => {
    const { store, recorder, call } = setup()
    store.put('agent', '/a', read)
    expect(await settled(call(edited))).toEqual(ok)
    const lookup = recorder.lookup('agent', target)
    expect(await settled(Promise.resolve(lookup))).toBe('waiting')
    store.held[0]!.release()
    expect(await lookup).toMatchObject({ version: 'v2' })
  })

  it('reports a deferred observation that failed on the owner\'s next call', async () => {
    const { store, call } = setup()
    store.put('agent', '/a', read)
    expect(await call(edited)).toEqual(ok)
    store.held[0]!.fail(new LedgerError('the Redis ledger at redis://127.0.0.1:1 failed: gone'))
    const pending = call(read)
    await settled(pending)
    store.held[1]!.release()
    const next = await pending
    expect(next.error?.code).toBe(LEDGER_UNAVAILABLE)
    expect(next.content[0]!.text).toContain('the Redis ledger at redis://127.0.0.1:1 failed: gone')
  })
})
