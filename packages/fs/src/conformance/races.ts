import { expect, it } from 'vitest'
import type { FsErrorCode } from '../errors'
import type { FsTarget, FsVersion } from '../types'
import { type Clause, expectFsError, type Harness, needsPublishHook } from './harness'

/**
 * A call held between its probe and its publication while a competitor writes one file: the
 * contract's answer to "what if someone else wrote in between". The clauses of several groups are
 * such races; they differ only in the call, the competitor and what must be on disk afterwards.
 */
export interface Race {
  /** The clause's name; the suite adds `[needs beforeNextPublish]`. */
  name: string
  /** The file the call works on. */
  file: string
  /** What `file` holds before the call; left out, the call finds no file there. */
  before?: string
  /** Where the competitor writes and what, once the call has probed. */
  competitor: readonly [name: string, text: string]
  /** The call, given `file`'s target and the version it had before the competitor came (if it existed). */
  call(h: Harness, target: FsTarget, version: FsVersion | undefined): Promise<unknown>
  /** The code the call must fail with; left out, it must succeed. */
  fails?: FsErrorCode
  /** Each named file's text afterwards (`undefined`: no file there). */
  after: Record<string, string | undefined>
}

/** One clause per race, registered with `test` (`it`, or `it` narrowed by `needs`). */
export function raceClauses(h: Harness, races: readonly Race[], test: Clause = it): void {
  const clause = needsPublishHook(h, test)
  for (const race of races) clause(race.name, () => runRace(h, race))
}

/** Runs one race on a fixture that has `beforeNextPublish`. */
export async function runRace(h: Harness, race: Race): Promise<void> {
  if (race.before !== undefined) await h.external.write(race.file, race.before)
  const version = race.before === undefined ? undefined : await h.version(race.file)
  const [name, text] = race.competitor
  h.fixture.beforeNextPublish!(() => h.external.write(name, text))
  const call = race.call(h, await h.target(race.file), version)
  if (race.fails === undefined) await call
  else await expectFsError(call, race.fails)
  for (const [file, text] of Object.entries(race.after)) expect(await h.disk(file), file).toBe(text)
}
