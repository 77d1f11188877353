import { FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import { countLines, lineChanges, snippetAround } from './changes'
import type { Config } from './config'
import { snippetOptions } from './edit'
import { mutationTarget } from './paths'
import { refusal } from './refusals'
import { renderWrite } from './render'

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
    title: 'Write file',
    description: 'Creates a file, or replaces the whole content of an existing one. '
      + 'An existing file must first be shown by the dsh `read` tool in this session, and the overwrite fails if the file changed since. '
      + 'For changes to part of a file, prefer the dsh `edit` tool.',
    // Destructive: it replaces whatever the file held. Idempotent: the same call again leaves the same
    // bytes (the guard then expects the version this call wrote, so a retry succeeds or is refused).
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: writeInput,
    concurrency: 'exclusive',
    async execute(input, exec) {
      let target: FsTarget | undefined
      try {
        target = await mutationTarget(ctx, input.file_path, exec)
        const expected = await ctx.waterfall('fs/write-intent', target, exec, () => undefined)
        const outcome = await ctx.fs.writeText(target, input.content, expected, exec.signal)
        ctx.emit('fs/observed', target, { kind: 'present', version: outcome.version }, exec)
        // Bounded by the texts' size: the provider hands over `before` only below its diff bound.
        const changes = outcome.before === null ? undefined : lineChanges(outcome.before, outcome.after)
        return renderWrite({
          path: target.displayPath,
          operation: outcome.operation,
          lines: countLines(outcome.after),
          ...(changes === undefined ? {} : { changes }),
          snippet: outcome.operation === 'create' ? [] : await snippetAround(outcome.after, changes?.first, snippetOptions(config)),
          maxLineLength: config.readMaxLineLength,
        })
      } catch (error) {
        if (FsError.is(error)) return refusal(ctx, config, error, { tool: 'write', target, exec })
        throw error
      }
    },
  })
}
