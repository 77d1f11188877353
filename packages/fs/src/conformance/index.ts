import { describe } from 'vitest'
import { boundsClauses } from './bounds-clauses'
import { discoveryClauses } from './discovery-clauses'
import { connectionClauses } from './connection-clauses'
import { editClauses } from './edit-clauses'
import { encodingClauses } from './encoding-clauses'
import type { ConformanceCapabilities, ConformanceOptions } from './fixture'
import { fusedClauses } from './fused-clauses'
import { Harness } from './harness'
import { permissionClauses } from './permission-clauses'
import { publicationClauses } from './publication-clauses'
import { readClauses } from './read-clauses'
import { removalClauses } from './removal-clauses'
import { robustnessClauses } from './robustness-clauses'
import { writeClauses } from './write-clauses'

export type { ConformanceCapabilities, ConformanceFixture, ConformanceOptions, ExternalWorld, FixtureFor } from './fixture'
export { expectFsError } from './harness'

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
/** The groups of clauses, in the order they run; `groups` in the options picks some of them. */
export const CONFORMANCE_GROUPS = {
  reads: ['identity, stat, versions and reads', readClauses],
  writes: ['writeText', writeClauses],
  edits: ['editText', editClauses],
  encodings: ['legacy encodings, byte-exact', encodingClauses],
  robustness: ['aborts, concurrency and errors', robustnessClauses],
  permissions: ['permissions', permissionClauses],
  discovery: ['discovery (walk, search) and editTextMany', discoveryClauses],
  bounds: ['memory bounds of every mutation', boundsClauses],
  publication: ['between probe and publication', publicationClauses],
  connection: ['a lost connection', connectionClauses],
  fused: ['inspect and resolveForMutation', fusedClauses],
  removal: ['remove and rename (optional capabilities)', removalClauses],
} as const satisfies Record<string, readonly [string, (h: Harness) => void]>

export type ConformanceGroup = keyof typeof CONFORMANCE_GROUPS

export function describeConformance<const C extends ConformanceCapabilities>(name: string, options: ConformanceOptions<C>): void {
  describe(`FileSystem conformance: ${name}`, () => {
    const h = Harness.perTest(options)
    for (const [group, [title, clauses]] of Object.entries(CONFORMANCE_GROUPS)) {
      if (options.groups === undefined || options.groups.includes(group as ConformanceGroup)) describe(title, () => clauses(h))
    }
  })
}
