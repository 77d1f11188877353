import type { Context } from 'cordis'
import { mutationTarget } from './paths'
import type { FsCall } from './skeleton'

/**
 * The target of a change of part of a file and its guard, from the `fs/edit-intent` waterfall (the
 * policy's version, or none without a policy). The call keeps the target for its failure path.
 */
export async function editIntent(ctx: Context, path: string, call: FsCall) {
  const target = call.target = await mutationTarget(ctx, path, call.exec)
  return { target, expected: await ctx.waterfall('fs/edit-intent', target, call.exec, () => undefined) }
}
