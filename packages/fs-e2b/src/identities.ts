import type { Sandbox } from 'e2b'
import { posix } from 'node:path'
import type { Identity } from './parse'

/** Enough for every path a long session touches; the oldest entries go first beyond it. */
export const MAX_REMEMBERED_PATHS = 4096

/**
 * Where lexical paths led the last time a script looked (`identify` in the scripts): the memory
 * behind `resolveForMutation`, which names a key without a round trip. It is never trusted for
 * correctness: every publication checks in the sandbox that the path still leads to the key it was
 * given, so a stale entry costs one refused write, never a wrong one.
 */
export class Identities {
  #keys = new Map<string, string>()
  readonly #max: number

  constructor(max = MAX_REMEMBERED_PATHS) {
    this.#max = Math.max(1, max)
  }

  /** What a script reported for `path`: its key, and its directory's realpath. */
  learn(path: string, identity: Identity): void {
    this.#remember(path, identity.key)
    const dir = posix.dirname(path)
    if (dir !== path) this.#remember(dir, identity.parent)
  }

  /**
   * The key `path` had when last seen; else, when its directory was seen, the directory's realpath
   * plus the name (wrong only if the name is a symlink, which the publication then finds).
   */
  recall(path: string): string | undefined {
    const known = this.#keys.get(path)
    if (known !== undefined) return known
    const dir = posix.dirname(path)
    const parent = dir === path ? undefined : this.#keys.get(dir)
    return parent === undefined ? undefined : posix.join(parent, posix.basename(path))
  }

  #remember(path: string, key: string): void {
    this.#keys.delete(path)
    this.#keys.set(path, key)
    if (this.#keys.size > this.#max) this.#keys.delete(this.#keys.keys().next().value!)
  }
}

const bySandbox = new WeakMap<Sandbox, Identities>()

/** What is known of one sandbox's paths, shared by every provider talking to it (realpaths are the sandbox's, not a provider's); the first provider sets the cap. */
export function identitiesOf(sandbox: Sandbox, max?: number): Identities {
  let identities = bySandbox.get(sandbox)
  if (!identities) bySandbox.set(sandbox, identities = new Identities(max))
  return identities
}
