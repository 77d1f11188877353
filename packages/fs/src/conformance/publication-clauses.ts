import { expect, it } from 'vitest'
import { FsError } from '../errors'
import { cutListing } from '../listing'
import type { FsTarget, FsVersion } from '../types'
import { type Harness, expectFsError, needsPublishHook, type ClauseGroup } from './harness'

/**
 * The clauses about the stretch between a write's probe and its publication, where the backend
 * holds staged bytes and another writer, a listing or an abort can come in. Each check is a plain
 * function of the harness so the suite's own tests can run it against deliberately broken providers.
 */
export const publicationChecks = {
  /** A `replaceIfVersion` guard decided only at the first probe lets a competitor's bytes be overwritten. */
  async competitorUnderReplaceIfVersion(h: Harness): Promise<void> {
    await h.external.write('r.txt', 'v1')
    const version = await h.version('r.txt')
    hook(h, () => h.external.write('r.txt', 'v2, written by a competitor'))
    await expectFsError(h.fs.writeText(await h.target('r.txt'), 'mine', { expected: { kind: 'replaceIfVersion', version } }), 'FS_STALE_VERSION')
    expect(await h.disk('r.txt')).toBe('v2, written by a competitor')
  },

  /** Staged bytes, locks and other residue never appear in a listing: not while a write is held, not after it failed. */
  async noResidueInListings(h: Harness): Promise<void> {
    await h.external.write('d/keep.txt', 'keep')
    await h.external.write('d/f.txt', 'old')
    const dir = await h.target('d')
    const seen: { names: string[]; total: number }[] = []
    const look = async () => {
      const listing = await h.fs.listDir(dir)
      // What a caller counts with a limit (`omitted`) must not include residue either.
      const { entries, omitted } = cutListing(await h.fs.listDir(dir, undefined, { limit: 1 }), { limit: 1 })
      seen.push({ names: listing.map((entry) => entry.name).sort(), total: entries.length + omitted })
    }
    const f = await h.target('d/f.txt')

    hook(h, look)
    await h.fs.writeText(f, 'new')
    hook(h, look)
    await h.fs.writeText(await h.target('d/g.txt'), 'g', { expected: { kind: 'createIfAbsent' } })
    const version = await h.version('d/f.txt')
    hook(h, async () => {
      await look()
      await h.external.write('d/f.txt', 'moved on')
    })
    await expectFsError(h.fs.writeText(f, 'stale', { expected: { kind: 'replaceIfVersion', version } }), 'FS_STALE_VERSION')
    hook(h, look)
    await h.fs.editText(f, { oldString: 'moved', newString: 'edited', replaceAll: false })

    const users = (...names: string[]) => ({ names, total: names.length })
    expect(seen, 'the listings seen while writes were held').toEqual([
      users('f.txt', 'keep.txt'),
      users('f.txt', 'keep.txt'),
      users('f.txt', 'g.txt', 'keep.txt'),
      users('f.txt', 'g.txt', 'keep.txt'),
    ])
    expect((await h.fs.listDir(dir)).map((entry) => entry.name).sort()).toEqual(['f.txt', 'g.txt', 'keep.txt'])
    expect(await h.disk('d/f.txt')).toBe('edited on')
  },

  /** An abort that fires while the write is held before publication is honoured: `FS_ABORTED`, nothing changed. */
  async abortBeforePublication(h: Harness): Promise<void> {
    for (const op of OPERATIONS) {
      const name = `held/${op.name}.txt`
      if (op.before !== undefined) await h.external.write(name, op.before)
      const version = op.before === undefined ? undefined : await h.version(name)
      const controller = new AbortController()
      hook(h, async () => controller.abort(new Error('cancelled by the test at the publication point')))
      await expectFsError(op.run(h, await h.target(name), version, controller.signal), 'FS_ABORTED')
      await expectUnchanged(h, name, op.before, version)
    }
    await expectListing(h, 'held', OPERATIONS.filter((op) => op.before !== undefined).map((op) => `${op.name}.txt`))
  },

  /**
   * An abort may land at any await of an operation. Wherever it lands, the call either succeeds with
   * the new bytes or fails `FS_ABORTED` having changed nothing, and leaves nothing behind in the
   * listing. The abort comes after 0, 1, 4, 16 … event-loop turns, until the operation wins the race.
   */
  async abortAtEveryStep(h: Harness): Promise<void> {
    for (const op of OPERATIONS) {
      const present: string[] = []
      for (let turns = 0, round = 0; ; turns = turns === 0 ? 1 : turns * 4, round++) {
        const name = `steps/${op.name}/${round}.txt`
        if (op.before !== undefined) await h.external.write(name, op.before)
        const version = op.before === undefined ? undefined : await h.version(name)
        const controller = new AbortController()
        const settled = settle(op.run(h, await h.target(name), version, controller.signal))
        const finished = await settledWithin(turns, settled)
        controller.abort(new Error(`cancelled by the test after ${turns} turns`))
        const outcome = await settled
        if (outcome.ok) {
          expect(await h.disk(name), `${op.name} succeeded after an abort at turn ${turns}`).toBe(op.after)
        } else {
          expect(FsError.is(outcome.error, 'FS_ABORTED'), `${op.name} aborted at turn ${turns}: ${String(outcome.error)}`).toBe(true)
          await expectUnchanged(h, name, op.before, version)
        }
        if (outcome.ok || op.before !== undefined) present.push(`${round}.txt`)
        if (finished || turns >= MAX_TURNS) break
      }
      await expectListing(h, `steps/${op.name}`, present)
    }
  },
}

export const publication: ClauseGroup = { title: 'between probe and publication', clauses: publicationClauses }

export function publicationClauses(h: Harness): void {
  const hooked = needsPublishHook(h)
  hooked('fails a replaceIfVersion write whose file changed after its probe with FS_STALE_VERSION and keeps the competitor\'s bytes',
    () => publicationChecks.competitorUnderReplaceIfVersion(h))
  hooked('never shows staged bytes or other residue in a listing, while a write is held or after it failed',
    () => publicationChecks.noResidueInListings(h))
  hooked('fails FS_ABORTED and changes nothing when the signal fires between staging and publication',
    () => publicationChecks.abortBeforePublication(h))
  it('either completes or fails FS_ABORTED having changed nothing, wherever an abort lands', () => publicationChecks.abortAtEveryStep(h), 120_000)
}

/** The abort that lands after 2^22 turns is past any operation's end on any backend worth testing. */
const MAX_TURNS = 2 ** 22

interface Operation {
  name: string
  /** The file's content before the call; `undefined` = the call creates it. */
  before: string | undefined
  after: string
  run(h: Harness, target: FsTarget, version: FsVersion | undefined, signal: AbortSignal): Promise<unknown>
}

const OPERATIONS: readonly Operation[] = [
  { name: 'write', before: 'before\n', after: 'after\n', run: (h, target, _, signal) => h.fs.writeText(target, 'after\n', { signal }) },
  {
    name: 'replace', before: 'before\n', after: 'after\n',
    run: (h, target, version, signal) => h.fs.writeText(target, 'after\n', { expected: { kind: 'replaceIfVersion', version: version! }, signal }),
  },
  { name: 'create', before: undefined, after: 'after\n', run: (h, target, _, signal) => h.fs.writeText(target, 'after\n', { expected: { kind: 'createIfAbsent' }, signal }) },
  {
    name: 'edit', before: 'before\n', after: 'after\n',
    run: (h, target, version, signal) => h.fs.editText(target, { oldString: 'before', newString: 'after', replaceAll: false }, { expected: { version: version! }, signal }),
  },
]

function hook(h: Harness, fn: () => Promise<void>): void {
  h.fixture.beforeNextPublish!(fn)
}

async function expectUnchanged(h: Harness, name: string, before: string | undefined, version: FsVersion | undefined): Promise<void> {
  if (before === undefined) {
    expect(await h.external.read(name), `${name} was created by an aborted call`).toBeUndefined()
    return
  }
  expect(await h.disk(name), `${name} was changed by an aborted call`).toBe(before)
  expect(await h.version(name)).toBe(version)
}

async function expectListing(h: Harness, dir: string, names: string[]): Promise<void> {
  const listed = (await h.fs.listDir(await h.target(dir))).map((entry) => entry.name).sort()
  expect(listed, `residue in ${dir}/`).toEqual([...names].sort())
}

type Settled = { ok: true } | { ok: false; error: unknown }

function settle(promise: Promise<unknown>): Promise<Settled> {
  return promise.then(() => ({ ok: true }), (error: unknown) => ({ ok: false, error }))
}

/** Waits up to `turns` event-loop turns; true when `settled` resolved first. */
async function settledWithin(turns: number, settled: Promise<Settled>): Promise<boolean> {
  let done = false
  void settled.then(() => { done = true })
  for (let turn = 0; turn < turns && !done; turn++) await new Promise<void>((next) => setImmediate(next))
  return done
}
