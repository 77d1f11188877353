import { type FsTarget, fsError } from '@deepseek-ai/dsh-fs'
import type { Calls } from './calls'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { errnoCode, isMissing } from './errors'
import type { DiskCore } from './local-disk'

/** A path the OS would reject, caught before it reaches a syscall (Node throws on NUL itself). */
export function checkPathSyntax(path: string): void {
  if (typeof path !== 'string' || path.length === 0) throw fsError('FS_INVALID_PATH', { path: String(path), reason: 'the path is empty' })
  if (path.includes('\0')) throw fsError('FS_INVALID_PATH', { path, reason: 'the path contains a NUL byte' })
}

/** The realpath of `absolute`, or of its nearest existing ancestor joined with the rest (a key minted before a creation still names the file). */
export async function realKey(calls: Calls, absolute: string): Promise<string> {
  const missing: string[] = []
  let current = absolute
  for (;;) {
    try {
      // realpath(3) looks every prefix up again (quadratic in depth): a missing ancestor is skipped
      // with one `lstat` instead; one longer than PATH_MAX is not there for any call either.
      if (missing.length > 0) await calls.lstat(current)
      const real = await calls.realpath(current)
      return missing.length === 0 ? real : join(real, ...missing.reverse())
    } catch (error) {
      // ENOTDIR: a component is a file; the operation on the key reports it at the syscall.
      if (!isMissing(error) && !(errnoCode(error) === 'ENAMETOOLONG' && missing.length > 0)) throw error
      const parent = dirname(current)
      if (parent === current) throw error
      missing.push(basename(current))
      current = parent
    }
  }
}

/** The containment root, realpath'd once on first use; every check compares real locations. Without a root everything is inside. */
export class Containment {
  readonly #configured: string | undefined
  readonly enabled: boolean
  #real: Promise<string> | undefined

  constructor(private readonly calls: Calls, root: string | undefined, cwd: string) {
    this.#configured = root === undefined ? undefined : resolve(cwd, root)
    this.enabled = root !== undefined
  }

  /** Throws `FS_OUTSIDE_ROOT` unless `real` is inside the root; the text never names `real` (where an outside path leads is outside information). */
  async check(real: string, displayPath: string): Promise<void> {
    if (this.#configured === undefined) return
    this.#real ??= this.calls.realpath(this.#configured).catch((error: unknown) => {
      this.#real = undefined
      throw fsError('FS_NOT_FOUND', { cause: error, path: this.#configured, reason: 'cannot be resolved, so it cannot be the configured root' })
    })
    const root = await this.#real
    if (real === root || real.startsWith(root.endsWith(sep) ? root : root + sep)) return
    throw fsError('FS_OUTSIDE_ROOT', { path: displayPath, root })
  }
}

/** Re-checks containment of a target's key, for targets not minted by this instance's `resolve`. */
export async function checkReal(core: DiskCore, target: FsTarget): Promise<void> {
  if (!core.containment.enabled) return
  await core.containment.check(await realKey(core.process.calls, target.targetKey), target.displayPath)
}
