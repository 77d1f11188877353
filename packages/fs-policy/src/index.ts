import type { Context } from 'cordis'
import type { z } from 'zod'
import { Config } from './config'
import { editExpectation, ObservedState, ownerOf, writeIntent } from './observations'

export { Config } from './config'
export { editExpectation, ObservedState, ownerOf, writeIntent } from './observations'
export { checkWholeReplacement, observedAfter } from './seen-rule'
// Re-exported so that the `fs/*` event augmentation travels with this package's types.
export type { FsEditExpectation, FsObservation, FsSeenLines } from '@deepseek-ai/dsh-fs'

export const name = 'dsh-fs-policy'

/**
 * Read-before-edit and compare-and-swap freshness, through the `fs/*` events only: no service, no
 * `inject`, no filesystem I/O. The provider checks the chosen guard inside its critical section,
 * so the policy never stats or compares versions itself (that check would race the write anyway).
 * Both intent listeners answer without calling `next()`: this policy owns the decision slot.
 */
export function apply(ctx: Context, config: z.input<typeof Config>): void {
  const { seenBeforeReplace } = Config.parse(config)
  const state = new ObservedState()
  ctx.on('fs/observed', (target, observation, actor) => state.record(ownerOf(actor), target, observation))
  ctx.on('fs/write-intent', async (target, actor) => writeIntent(state.get(ownerOf(actor), target), { target, seenBeforeReplace }))
  ctx.on('fs/edit-intent', async (target, actor) => editExpectation(state.get(ownerOf(actor), target), target))
  // Listeners go with the fiber; the memory is dropped explicitly so a reload starts from unseen.
  ctx.effect(() => () => state.clear(), 'observed state')
}

export default { name, Config, apply }
