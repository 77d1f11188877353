import { describe } from 'vitest'
import { bounds } from './bounds-clauses'
import { connection } from './connection-clauses'
import { discovery } from './discovery-clauses'
import { edits } from './edit-clauses'
import { encodings } from './encoding-clauses'
import type { ConformanceCapabilities, ConformanceOptions } from './fixture'
import { fused } from './fused-clauses'
import { type ClauseGroup, Harness } from './harness'
import { permissions } from './permission-clauses'
import { publication } from './publication-clauses'
import { reads } from './read-clauses'
import { removal } from './removal-clauses'
import { robustness } from './robustness-clauses'
import { writes } from './write-clauses'

export type { ConformanceCapabilities, ConformanceFixture, ConformanceOptions, ExternalWorld, FixtureFor } from './fixture'
export { expectFsError } from './harness'

/** The groups of clauses, in the order they run; `groups` in the options picks some of them. */
export const CONFORMANCE_GROUPS = {
  reads, writes, edits, encodings, robustness, permissions, discovery, bounds, publication, connection, fused, removal,
} as const satisfies Record<string, ClauseGroup>

export type ConformanceGroup = keyof typeof CONFORMANCE_GROUPS

/**
 * Runs the `FileSystem` contract against a provider: one test per clause, a fresh fixture per test.
 * Clauses that need a capability the backend declares missing are skipped, and their names say why.
 * The capabilities decide the fixture's type: `symlinks: true` does not compile without
 * `external.symlink`, `remote: true` without `dropConnection`.
 *
 * ```ts
 * describeConformance('my provider', { capabilities: { symlinks: false, specialFiles: false, restoreMtime: false }, setup })
 * ```
 */
export function describeConformance<const C extends ConformanceCapabilities>(name: string, options: ConformanceOptions<C>): void {
  describe(`FileSystem conformance: ${name}`, () => {
    const h = Harness.perTest(options)
    for (const [group, { title, clauses }] of Object.entries(CONFORMANCE_GROUPS)) {
      if (options.groups === undefined || options.groups.includes(group as ConformanceGroup)) describe(title, () => clauses(h))
    }
  })
}
