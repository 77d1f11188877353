import { throwIfAborted } from './errors'

/**
 * A provider's primitives for one guarded mutation, in the order `publishGuarded` runs them. `P` is
 * what the probe saw (a version, the old bytes, a memory reservation), `S` what staging made.
 */
export interface PublicationSteps<P, S, R> {
  /** The displayed path, for `FS_ABORTED`. */
  path: string
  signal?: AbortSignal | undefined
  /** Looks at the target and decides the guard on what is there (`checkWriteGuard`), throwing its refusal. */
  probe(): P | Promise<P>
  /**
   * Makes what will be published (`planWrite`, `planEdit`) and, on a backend that needs it, puts the
   * bytes under a staging name that `listDir` never shows.
   */
  stage(probe: P): S | Promise<S>
  /**
   * Decides the guard again, under the publication point, on what is there now: another writer may
   * have come in since the probe. Throws the refusal. A backend whose publication is itself a
   * compare-and-swap (`ln -T`, `If-Match`) leaves it out and refuses in `publish`.
   */
  recheck?(probe: P, staged: S): void | Promise<void>
  /** Makes the staged bytes the target's, atomically; returns the outcome. */
  publish(probe: P, staged: S): R | Promise<R>
  /**
   * Runs once whenever the probe succeeded, after the attempt ends: removes staging left by a
   * failed attempt (`published` false), releases what the probe reserved.
   */
  cleanup?(probe: P, staged: S | undefined, published: boolean): void | Promise<void>
  /**
   * Whether a refusal at the publication point (from `recheck` or `publish`) starts over from the
   * probe: an unguarded mutation that lost a race only planned from old bytes. Asked after
   * `cleanup`; may wait (a backoff) or throw instead (too many attempts). Default: never.
   */
  retry?(error: unknown, attempt: number): boolean | Promise<boolean>
}

/**
 * The loop every provider writes: probe → stage → (abort?) → re-check → publish, with cleanup on
 * every exit. The signal is honoured before the probe and after staging, the last moment at which
 * nothing has changed; once publication starts it runs to the end.
 */
export async function publishGuarded<P, S, R>(steps: PublicationSteps<P, S, R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(steps.signal, steps.path)
    const probe = await steps.probe()
    let staged: S | undefined
    let published = false
    let refusal: { error: unknown }
    try {
      staged = await steps.stage(probe)
      throwIfAborted(steps.signal, steps.path)
      try {
        await steps.recheck?.(probe, staged)
        const result = await steps.publish(probe, staged)
        published = true
        return result
      } catch (error) {
        refusal = { error }
      }
    } finally {
      await steps.cleanup?.(probe, staged, published)
    }
    // Decided after the cleanup, so a backoff in `retry` holds nothing the attempt reserved.
    if (!(await steps.retry?.(refusal.error, attempt))) throw refusal.error
  }
}
