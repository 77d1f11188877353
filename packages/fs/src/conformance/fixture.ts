import type { FileSystem } from '../service'
import { FS_OPTIONAL_METHODS, type FsOptionalMethod } from '../types'

/**
 * What a backend can do. The suite skips the clauses that need a capability declared `false` (or
 * left out, for the optional ones) and says so in the test name, so a skipped clause is visible in
 * every report. Declaring one `true` makes the helper it needs required by the fixture's type.
 */
/**
 * Also one optional flag per optional method (`remove`, `rename`: `FS_OPTIONAL_METHODS`). Left out,
 * the suite follows the provider's own `capabilities`; declared, it must agree with them.
 */
export interface ConformanceCapabilities extends Partial<Record<FsOptionalMethod, boolean>> {
  /** Symbolic links exist and `external.symlink` makes them. */
  symlinks: boolean
  /** FIFOs exist and `external.mkfifo` makes them. */
  specialFiles: boolean
  /** `external.rewriteKeepingMtime` can put a file's mtime back after a same-size rewrite. */
  restoreMtime: boolean
  /** Files can be made read-only (`external.makeReadOnly`, `chmod a-w` on a disk). */
  readOnlyFiles?: boolean
  /**
   * The backend is reached over a connection that can be lost (a sandbox, SSH, a server), and the
   * fixture's `dropConnection` loses it.
   */
  remote?: boolean
  /**
   * Edit outcomes carry `changes` and `lineTotals` (where the edit landed). Both are optional in
   * the contract, so a provider that predates them conforms without; one that reports them
   * declares this, and the suite checks them.
   */
  editLines?: boolean
}

/**
 * The world outside the provider: another process changing files behind its back. Names are
 * relative to the fixture's directory (`a/b.txt`).
 */
export interface ExternalWorld {
  write(name: string, data: string | Uint8Array): Promise<void>
  /** The bytes at `name`, or `undefined` when nothing is there. */
  read(name: string): Promise<Uint8Array | undefined>
  remove(name: string): Promise<void>
  mkdir(name: string): Promise<void>
  /** Rewrites a file with same-size content and restores its previous mtime. */
  rewriteKeepingMtime?(name: string, data: string | Uint8Array): Promise<void>
  /** Makes `name` a symbolic link whose content is `target` (relative targets are relative to the link). */
  symlink?(target: string, name: string): Promise<void>
  mkfifo?(name: string): Promise<void>
  /** Takes every write permission away from an existing file (`chmod a-w`), keeping its bytes. */
  makeReadOnly?(name: string): Promise<void>
}

export interface ConformanceFixture {
  fs: FileSystem
  /** The path to hand to `fs.resolve` for a fixture-relative name (absolute in the provider's namespace). */
  path(name: string): string
  external: ExternalWorld
  /**
   * Arranges for `hook` to run once, the next time the provider stands between the probe of a
   * write and its publication point (its bytes staged, nothing published). Without it, the clauses
   * about competitors, residue and aborts at that point are skipped.
   */
  beforeNextPublish?(hook: () => Promise<void>): void
  /**
   * Loses the provider's connection to its backend the way a network does: from now on nothing
   * answers. The provider's own deadline (from its config) must then fail every call `FS_IO_ERROR`.
   */
  dropConnection?(): Promise<void>
  dispose(): Promise<void>
}

/** Which capability needs which helper, and where that helper lives. */
interface CapabilityHelpers {
  symlinks: { external: Required<Pick<ExternalWorld, 'symlink'>> }
  specialFiles: { external: Required<Pick<ExternalWorld, 'mkfifo'>> }
  restoreMtime: { external: Required<Pick<ExternalWorld, 'rewriteKeepingMtime'>> }
  readOnlyFiles: { external: Required<Pick<ExternalWorld, 'makeReadOnly'>> }
  remote: Required<Pick<ConformanceFixture, 'dropConnection'>>
}

/** The helpers capability `K` needs, unless `C` declares it `false` or leaves an optional one out. */
type Needs<C, K extends keyof CapabilityHelpers> = K extends keyof C ? (C[K] extends false | undefined ? unknown : CapabilityHelpers[K]) : unknown

/**
 * The fixture a backend with capabilities `C` must return: `symlinks: true` requires
 * `external.symlink`, `remote: true` requires `dropConnection`, and so on. A capability typed
 * `boolean` (decided at run time) requires its helper too.
 */
export type FixtureFor<C extends ConformanceCapabilities> = ConformanceFixture
  & Needs<C, 'symlinks'> & Needs<C, 'specialFiles'> & Needs<C, 'restoreMtime'> & Needs<C, 'readOnlyFiles'> & Needs<C, 'remote'>

export interface ConformanceOptions<C extends ConformanceCapabilities = ConformanceCapabilities> {
  capabilities: C
  /** Makes a fresh, empty fixture; called once per test. */
  setup(): Promise<FixtureFor<C>>
  /**
   * Only these groups of clauses (`CONFORMANCE_GROUPS`); default all. For a provider run in two
   * configurations, each proving the groups its configuration can answer.
   */
  groups?: readonly ('reads' | 'writes' | 'edits' | 'encodings' | 'robustness' | 'permissions' | 'discovery' | 'bounds' | 'publication' | 'connection' | 'fused' | 'removal')[]
}

/** The optional `FileSystem` methods that are capabilities of their own (`FS_OPTIONAL_METHODS`). */
export const METHOD_CAPABILITIES = FS_OPTIONAL_METHODS

/** The helper each capability needs, for the run-time check of callers the types did not reach. */
export const CAPABILITY_HELPERS: Readonly<Record<keyof CapabilityHelpers, [string, (fixture: ConformanceFixture) => unknown]>> = {
  symlinks: ['external.symlink', (fixture) => fixture.external.symlink],
  specialFiles: ['external.mkfifo', (fixture) => fixture.external.mkfifo],
  restoreMtime: ['external.rewriteKeepingMtime', (fixture) => fixture.external.rewriteKeepingMtime],
  readOnlyFiles: ['external.makeReadOnly', (fixture) => fixture.external.makeReadOnly],
  remote: ['dropConnection', (fixture) => fixture.dropConnection],
}
