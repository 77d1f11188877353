import { describe } from 'vitest'
import { discoveryClauses } from './discovery-clauses'
import { editClauses } from './edit-clauses'
import type { ConformanceOptions } from './fixture'
import { fusedClauses } from './fused-clauses'
import { Harness } from './harness'
import { permissionClauses } from './permission-clauses'
import { readClauses } from './read-clauses'
import { robustnessClauses } from './robustness-clauses'
import { writeClauses } from './write-clauses'

export type { ConformanceCapabilities, ConformanceFixture, ConformanceOptions, ExternalWorld } from './fixture'
export { expectFsError } from './harness'

/**
 * Runs the `FileSystem` contract against a provider: one test per clause, a fresh fixture per test.
 * Clauses that need a capability the backend declares missing are skipped, and their names say why.
 *
 * ```ts
 * describeConformance('my provider', { capabilities: { symlinks: false, specialFiles: false, restoreMtime: false }, setup })
 * ```
 */
export function describeConformance(name: string, options: ConformanceOptions): void {
  describe(`FileSystem conformance: ${name}`, () => {
    const h = new Harness(options)
    describe('identity, stat, versions and reads', () => readClauses(h))
    describe('writeText', () => writeClauses(h))
    describe('editText', () => editClauses(h))
    describe('aborts, concurrency and errors', () => robustnessClauses(h))
    describe('permissions', () => permissionClauses(h))
    describe('discovery (walk, search) and editTextMany', () => discoveryClauses(h))
    describe('inspect and resolveForMutation', () => fusedClauses(h))
  })
}
