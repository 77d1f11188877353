import { describe } from 'vitest'
import { discoveryClauses } from './discovery-clauses'
import { connectionClauses } from './connection-clauses'
import { editClauses } from './edit-clauses'
import type { ConformanceCapabilities, ConformanceOptions } from './fixture'
import { fusedClauses } from './fused-clauses'
import { Harness } from './harness'
import { permissionClauses } from './permission-clauses'
import { publicationClauses } from './publication-clauses'
import { readClauses } from './read-clauses'
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
export function describeConformance<const C extends ConformanceCapabilities>(name: string, options: ConformanceOptions<C>): void {
  describe(`FileSystem conformance: ${name}`, () => {
    const h = Harness.perTest(options)
    describe('identity, stat, versions and reads', () => readClauses(h))
    describe('writeText', () => writeClauses(h))
    describe('editText', () => editClauses(h))
    describe('aborts, concurrency and errors', () => robustnessClauses(h))
    describe('permissions', () => permissionClauses(h))
    describe('discovery (walk, search) and editTextMany', () => discoveryClauses(h))
    describe('between probe and publication', () => publicationClauses(h))
    describe('a lost connection', () => connectionClauses(h))
    describe('inspect and resolveForMutation', () => fusedClauses(h))
  })
}
