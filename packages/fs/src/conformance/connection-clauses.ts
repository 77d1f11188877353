import { expect } from 'vitest'
import { FsError } from '../errors'
import { type Harness, needs, within, type ClauseGroup } from './harness'

/**
 * How long a call may stay pending once the connection is gone. Not a speed requirement: the
 * provider's own deadline (set short in the fixture's config) decides when it gives up; this bound
 * only tells "gives up" from "hangs forever".
 */
export const HANG_BOUND_MS = 10_000

export const connectionChecks = {
  /**
   * With the connection lost, every call settles, as `FS_IO_ERROR`, and none changes a file
   * (checked from outside, since the provider can no longer look).
   */
  async failsPromptlyAfterDrop(h: Harness, bound = HANG_BOUND_MS): Promise<void> {
    // One file per mutating call: calls on one target queue behind each other, each with its own deadline.
    const names = ['r.txt', 'w.txt', 'v.txt', 'e.txt']
    for (const name of names) await h.external.write(name, 'before\n')
    await h.external.mkdir('d')
    const [read, write, replace, edit] = await Promise.all(names.map((name) => h.target(name)))
    const dir = await h.target('d')
    const version = await h.version('v.txt')
    await h.fixture.dropConnection!()
    const calls: [string, () => Promise<unknown>][] = [
      ['stat', () => h.fs.stat(read!)],
      ['readText', () => h.fs.readText(read!)],
      ['listDir', () => h.fs.listDir(dir)],
      ['writeText', () => h.fs.writeText(write!, 'after\n')],
      ['writeText replaceIfVersion', () => h.fs.writeText(replace!, 'after\n', { expected: { kind: 'replaceIfVersion', version } })],
      ['editText', () => h.fs.editText(edit!, { oldString: 'before', newString: 'after', replaceAll: false })],
    ]
    const outcomes = await within(bound, Promise.all(calls.map(([name, call]) => call().then(
      () => `${name}: succeeded without a connection`,
      (error: unknown) => (FsError.is(error, 'FS_IO_ERROR') ? `${name}: FS_IO_ERROR` : `${name}: ${String(error)}`),
    ))))
    expect(outcomes).toEqual(calls.map(([name]) => `${name}: FS_IO_ERROR`))
    for (const name of names) expect(await h.disk(name), name).toBe('before\n')
  },
}

export const connection: ClauseGroup = { title: 'a lost connection', clauses: connectionClauses }

export function connectionClauses(h: Harness): void {
  needs(h, 'remote')('fails every call FS_IO_ERROR within its deadline once the connection is lost, never hanging',
    () => connectionChecks.failsPromptlyAfterDrop(h), HANG_BOUND_MS * 3)
}
