import { type FsWriteOutcome } from '@deepseek-ai/dsh-fs'
import { seenEverything } from '@deepseek-ai/dsh-fs/kit'
import { argumentRefused, decodingOf, printedProblem, type WrittenReport } from '@deepseek-ai/dsh-tool-text'
import type { Context } from 'cordis'
import { z } from 'zod'
import { countLines, lineChanges, snippetAround } from './changes'
import type { Config } from './config'
import { answerWhenPublished } from './answer'
import { renderChange, snippetOptions } from './edit'
import { mutationTarget } from './paths'
import { type FsCall, fsTool, type Refused } from './skeleton'

export const writeInput = z.object({
  file_path: z.string().describe('The file to create or replace: absolute, or relative to the working directory.'),
  content: z.string().describe('The complete new content of the file.'),
})

const DESCRIPTION = 'Creates a file, or replaces the whole content of an existing one. '
    + 'An existing file must first be shown by the dsh `read` tool in this session, every line of it, and the overwrite fails if the file changed since. '
    + 'For changes to part of a file, prefer the dsh `edit` tool.'

/**
 * `write`: the guard comes from the `fs/write-intent` waterfall (the policy's choice, or no guard
 * when no policy is loaded) and is checked by the provider inside its critical section. The tool
 * itself never stats: a probe here would only race the write it is meant to protect.
 * Destructive: it replaces whatever the file held. Idempotent: the same call again leaves the same
 * bytes (the guard then expects the version this call wrote, so a retry succeeds or is refused).
 */
export function writeTool(ctx: Context, config: Config) {
  return fsTool(ctx, config, { name: 'write', title: 'Write file', kind: { change: { idempotent: true } }, inputSchema: writeInput, description: DESCRIPTION },
    { run: written, render: renderChange })
}

async function written(ctx: Context, config: Config, input: z.output<typeof writeInput>, call: FsCall): Promise<WrittenReport | Refused> {
  const printed = printedProblem(input.content, { family: 'fs', argument: 'content' })
  if (printed !== undefined) return argumentRefused(printed)
  const target = call.target = await mutationTarget(ctx, input.file_path, call.exec)
  const expected = await ctx.waterfall('fs/write-intent', target, call.exec, () => undefined)
  // The session wrote every line of the new version: it has seen all of it.
  const observed = (outcome: FsWriteOutcome) => ({ kind: 'present' as const, version: outcome.version, seen: seenEverything(countLines(outcome.after)) })
  const answer = answerWhenPublished(ctx, target, call.exec, observed,
    async (outcome: FsWriteOutcome) => ({ report: await writtenReport(target.displayPath, outcome, config), shown: [] }))
  return answer.finish(await ctx.fs.writeText(target, input.content, { expected, signal: call.exec.signal, hooks: answer.hooks, decoding: decodingOf(call.exec) }))
}

/** What a write did, as data: the one region between the lines it kept at both ends of the old text. */
async function writtenReport(path: string, outcome: FsWriteOutcome, config: Config): Promise<WrittenReport> {
  const report: WrittenReport = { kind: 'written', path, operation: outcome.operation, lines: countLines(outcome.after) }
  // Bounded by the texts' size: the provider hands over `before` only below its diff bound.
  if (outcome.operation === 'create' || outcome.before === null) return report
  const changes = lineChanges(outcome.before, outcome.after)
  report.counts = { added: changes.added, removed: changes.removed }
  if (changes.first !== undefined) report.first = { span: changes.first, snippet: await snippetAround(outcome.after, changes.first, snippetOptions(config)) }
  return report
}
