import { FOREIGN_NAMES } from './foreign-names'
import { FsError, type FsTarget, type FsWriteOutcome } from '@deepseek-ai/dsh-fs'
import { seenEverything } from '@deepseek-ai/dsh-fs/kit'
import { printedRefusal, renderReport, type WrittenReport } from '@deepseek-ai/dsh-tool-text'
import { defineTool, ToolError } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import { countLines, lineChanges, snippetAround } from './changes'
import type { Config } from './config'
import { answerWhenPublished } from './answer'
import { snippetOptions } from './edit'
import { mutationTarget } from './paths'
import { refusal } from './refusals'

export const writeInput = z.object({
  file_path: z.string().describe('The file to create or replace: absolute, or relative to the working directory.'),
  content: z.string().describe('The complete new content of the file.'),
})

/**
 * `write`: the guard comes from the `fs/write-intent` waterfall (the policy's choice, or no guard
 * when no policy is loaded) and is checked by the provider inside its critical section. The tool
 * itself never stats: a probe here would only race the write it is meant to protect.
 */
export function writeTool(ctx: Context, config: Config) {
  return defineTool({
    name: 'write',
    foreignNames: FOREIGN_NAMES.write,
    title: 'Write file',
    description: 'Creates a file, or replaces the whole content of an existing one. '
      + 'An existing file must first be shown by the dsh `read` tool in this session, every line of it, and the overwrite fails if the file changed since. '
      + 'For changes to part of a file, prefer the dsh `edit` tool.',
    // Destructive: it replaces whatever the file held. Idempotent: the same call again leaves the same
    // bytes (the guard then expects the version this call wrote, so a retry succeeds or is refused).
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: writeInput,
    concurrency: 'exclusive',
    async execute(input, exec) {
      const printed = printedRefusal(input.content, { family: 'fs', argument: 'content' })
      if (printed !== undefined) throw new ToolError('INVALID_ARGUMENTS', printed)
      let target: FsTarget | undefined
      try {
        target = await mutationTarget(ctx, input.file_path, exec)
        const expected = await ctx.waterfall('fs/write-intent', target, exec, () => undefined)
        const { displayPath } = target
        // The session wrote every line of the new version: it has seen all of it.
        const observed = (outcome: FsWriteOutcome) => ({ kind: 'present' as const, version: outcome.version, seen: seenEverything(countLines(outcome.after)) })
        const answer = answerWhenPublished(ctx, target, exec, observed, (outcome: FsWriteOutcome) => writtenReport(displayPath, outcome, config)
          .then((report) => ({ text: renderReport(report, 'fs', { maxLineLength: config.readMaxLineLength }), shown: [] })))
        return await answer.finish(await ctx.fs.writeText(target, input.content, { expected, signal: exec.signal, hooks: answer.hooks }))
      } catch (error) {
        if (FsError.is(error)) return refusal(ctx, config, error, { tool: 'write', target, exec })
        throw error
      }
    },
  })
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
