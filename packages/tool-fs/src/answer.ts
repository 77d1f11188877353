import type { FsObservation, FsTarget, FsVersion } from '@deepseek-ai/dsh-fs'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'

/**
 * The end of a successful mutation: the observation recorded and the reply rendered. Given to the
 * provider as `hooks.published`, both happen as soon as it knows the outcome, while it still makes
 * the write durable (its directory fsync); `finish` then waits for that reply, or, from a provider
 * that never told, does both itself. `observed` says what the session knows of the new version.
 */
export function answerWhenPublished<O extends { version: FsVersion }>(
  ctx: Context, target: FsTarget, exec: ToolExecution, observed: (outcome: O) => FsObservation, reply: (outcome: O) => Promise<string>,
) {
  let early: Promise<string> | undefined
  const record = (outcome: O) => ctx.emit('fs/observed', target, observed(outcome), exec)
  return {
    hooks: {
      published: (outcome: O) => {
        record(outcome)
        early = reply(outcome)
        // Awaited by `finish` unless the call fails after all; its failure is then not the answer.
        early.catch(() => {})
      },
    },
    finish: (outcome: O): Promise<string> => {
      if (early !== undefined) return early
      record(outcome)
      return reply(outcome)
    },
  }
}
