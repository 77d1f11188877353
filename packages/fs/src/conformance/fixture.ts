import type { FileSystem } from '../service'

/**
 * What a backend cannot do. The suite skips the clauses that need a missing capability and says so
 * in the test name, so a skipped clause is visible in every report.
 */
export interface ConformanceCapabilities {
  /** Symbolic links exist and `external.symlink` makes them. */
  symlinks: boolean
  /** FIFOs exist and `external.mkfifo` makes them. */
  specialFiles: boolean
  /** `external.rewriteKeepingMtime` can put a file's mtime back after a same-size rewrite. */
  restoreMtime: boolean
  /** Files can be made read-only (`external.makeReadOnly`, `chmod a-w` on a disk). Optional for older fixtures. */
  readOnlyFiles?: boolean
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
   * write and its publication point. Without it, the "competitor after the probe" clause is skipped.
   */
  beforeNextPublish?(hook: () => Promise<void>): void
  dispose(): Promise<void>
}

export interface ConformanceOptions {
  capabilities: ConformanceCapabilities
  /** Makes a fresh, empty fixture; called once per test. */
  setup(): Promise<ConformanceFixture>
}
