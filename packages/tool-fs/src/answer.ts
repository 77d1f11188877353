import type { FsObservation, FsTarget, FsVersion } from '@deepseek-ai/dsh-fs'
import { observe, type WindowLine } from '@deepseek-ai/dsh-tool-text'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'

/** A reply's data, and the numbered lines of the new version it shows (they count as seen). */
export interface Reply<R> {
  report: R
  shown: readonly WindowLine[]
}

/**
 * The end of a successful mutation: the reply's data built and the observation recorded. Given to
 * the provider as `hooks.published`, both happen as soon as it knows the outcome, while it still
 * makes the write durable (its directory fsync); `finish` then waits for that reply, or, from a
 * provider that never told, does both itself. `observed` says what the session knows of the new
 * version, given the lines the reply shows of it; it is recorded once the reply is built, before
 * the call returns. The text is the tool's render step's.
 */
export function answerWhenPublished<O extends { version: FsVersion; target?: FsTarget }, R>(
  ctx: Context, target: FsTarget, exec: ToolExecution,
  observed: (outcome: O, shown: readonly WindowLine[]) => FsObservation, reply: (outcome: O) => Promise<Reply<R>>,
) {
  let early: Promise<R> | undefined
  const answer = async (outcome: O): Promise<R> => {
    const { report, shown } = await reply(outcome)
    // A provider that created the file under another key than it first named says so.
    observe(ctx, outcome.target ?? target, observed(outcome, shown), exec)
    return report
  }
  return {
    hooks: {
      published: (outcome: O) => {
        early = answer(outcome)
        // Awaited by `finish` unless the call fails after all; its failure is then not the answer.
        early.catch(() => {})
      },
    },
    finish: (outcome: O): Promise<R> => early ?? answer(outcome),
  }
}
